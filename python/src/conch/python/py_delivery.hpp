#pragma once

#include <memory>

#include "conch/runtime/inference_response.hpp"

namespace conch::python {

class response_queue;

/// The one thread of the extension that hands responses to Python callables
/// (a response_queue in push mode: `async_infer`, `response_queue=`, a
/// callback). The thread that produced a response — a CAF worker, an HTTP
/// loop, a model's thread — only queues it here and goes on, so no thread of
/// Conch's ever waits for the GIL, and a Python thread busy in pure Python
/// cannot delay a C++ model's answers. Deliveries keep their order, so a
/// callable must not block waiting for another request's response. The
/// thread starts with the first delivery and lives as long as the process;
/// once the interpreter finalizes, deliveries are dropped. Thread-safe.
class py_delivery {
 public:
  /// Queues `r` for `queue`'s callable.
  static void post(std::shared_ptr<response_queue> queue, runtime::inference_response&& r);
};

} // namespace conch::python
