#pragma once

#include <atomic>

namespace conch::actors {

/// Flags the actors set and the public API reads from any thread.
struct server_flags {
  /// The server answers health/live.
  std::atomic<bool> live{false};
  /// New inference requests are admitted (false from the start of stop()).
  std::atomic<bool> accepting{false};
  /// Every model that should be loaded is READY (see strict_readiness).
  std::atomic<bool> models_ready{false};
};

} // namespace conch::actors
