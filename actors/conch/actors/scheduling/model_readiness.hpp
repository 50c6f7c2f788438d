#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "conch/runtime/backends/readiness_probe.hpp"

namespace conch::actors {

/// The readiness probes of one model version's instances (python's
/// `is_ready()`), shared by its scheduler, which sets and clears them as
/// instances come and go, and the model table, through which readiness
/// queries reach them. A version whose instances have no probe is ready
/// whenever the server says so; one with probes only while each says so.
class model_readiness {
 public:
  explicit model_readiness(size_t instances);

  /// The probe of instance `index` (null: it has none). Scheduler side.
  void set(size_t index, std::shared_ptr<runtime::backends::readiness_probe> probe);

  /// Instance `index` went: nothing to ask until it comes back.
  void clear(size_t index) { set(index, nullptr); }

  /// Asks every probe; `done` hears true once all said ready (at once when
  /// there are none) or false at the first that did not. Called exactly
  /// once, from any thread, possibly before check() returns. Never blocks.
  void check(std::function<void(bool ready)> done) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<runtime::backends::readiness_probe>> probes_;
};

} // namespace conch::actors
