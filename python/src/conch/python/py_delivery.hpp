#pragma once

#include <functional>
#include <memory>

#include "conch/runtime/inference_response.hpp"

namespace conch::python {

class response_queue;

/// The one thread of the extension that calls Python callables for Conch's
/// own threads: responses for a response_queue in push mode (`async_infer`,
/// `response_queue=`, a callback) and log lines for `log_callback`. The
/// thread that produced them — a CAF worker, an HTTP loop, a model's thread —
/// only queues them here and goes on, so no thread of Conch's ever waits for
/// the GIL, and a Python thread busy in pure Python cannot delay a C++
/// model's answers. Calls keep their order, so a callable must not block
/// waiting for another request's response. The thread starts with the first
/// call and lives as long as the process; once the interpreter finalizes,
/// calls are dropped. Thread-safe.
class py_delivery {
 public:
  /// Queues `r` for `queue`'s callable.
  static void post(std::shared_ptr<response_queue> queue, runtime::inference_response&& r);

  /// Queues `call`, run later with the GIL held. What it raises is reported
  /// as unraisable.
  static void post(std::function<void()> call);

  /// Returns once everything queued before the call has run. Releases the
  /// GIL while it waits; returns at once on the delivery thread itself (a
  /// callable that calls back into Conch) and when the thread never started.
  /// Requires the GIL.
  static void flush();
};

} // namespace conch::python
