#pragma once

#include <functional>

namespace conch::runtime::backends {

/// A model instance's own say in whether its model is ready, beside the
/// server's (python_backend's user-defined `is_ready()`). Consulted by every
/// per-model readiness query of a READY version; a model is ready only while
/// each of its instances that has a probe says so.
class readiness_probe {
 public:
  virtual ~readiness_probe() = default;

  /// Asks the instance. `done` hears the answer exactly once, from any
  /// thread, possibly before probe() returns; a probe whose check can take
  /// long bounds the wait itself and answers false past that bound. Never
  /// blocks; thread-safe.
  virtual void probe(std::function<void(bool ready)> done) = 0;
};

} // namespace conch::runtime::backends
