#pragma once

#include <functional>
#include <memory>

#include "conch/runtime/inference_response.hpp"

namespace conch::python {

class response_queue;

/// The threads of the extension that call Python callables for Conch's own
/// threads: one hands responses to a response_queue in push mode
/// (`async_infer`, `response_queue=`, a callback), the other hands log lines
/// to `log_callback`. The thread that produced them — a CAF worker, an HTTP
/// loop, a model's thread — only queues them here and goes on, so no thread
/// of Conch's ever waits for the GIL, and a Python thread busy in pure
/// Python cannot delay a C++ model's answers. Each thread keeps its calls in
/// order, so a callable must not block waiting for another request's
/// response. A thread starts with its first call and lives as long as the
/// process (a forked child starts its own); once the interpreter finalizes,
/// calls are dropped. Thread-safe.
class py_delivery {
 public:
  /// Queues `r` for `queue`'s callable.
  static void post(std::shared_ptr<response_queue> queue, runtime::inference_response&& r);

  /// Queues `call` for the log thread, run later with the GIL held. What it
  /// raises is reported as unraisable.
  static void post_log(std::function<void()> call);

  /// Returns once the log lines queued before the call have been handed
  /// over, or after a second at most (a log_callback that blocks must not
  /// hold a stop). Releases the GIL while it waits; returns at once on the
  /// log thread itself and when it never started. Requires the GIL.
  static void flush_logs();
};

} // namespace conch::python
