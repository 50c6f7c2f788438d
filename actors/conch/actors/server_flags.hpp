#pragma once

#include <atomic>
#include <memory>

#include "conch/actors/model_table.hpp"

namespace conch::actors {

/// What the actors publish for the public API to read from any thread
/// without asking an actor: health flags and the current model table.
struct server_flags {
  /// The server answers health/live.
  std::atomic<bool> live{false};
  /// New inference requests are admitted (false from the start of stop()).
  std::atomic<bool> accepting{false};
  /// Every model that should be loaded is READY (see strict_readiness).
  std::atomic<bool> models_ready{false};

  /// Replaces the published model table. Called by the repository.
  void publish(model_table_ptr table) { std::atomic_store(&table_, std::move(table)); }

  /// The last published model table (an empty one before the first).
  model_table_ptr table() const {
    auto t = std::atomic_load(&table_);
    return t ? t : std::make_shared<model_table>();
  }

 private:
  model_table_ptr table_;
};

} // namespace conch::actors
