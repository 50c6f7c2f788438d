#pragma once

#include <cstdint>
#include <string_view>

namespace conch::actors {

/// The state of a model version in the repository index.
enum class model_state : uint8_t {
  /// Known but never loaded (EXPLICIT mode lists such models by name only).
  unknown,
  /// Being loaded.
  loading,
  /// Serving requests.
  ready,
  /// Draining before it goes away.
  unloading,
  /// Failed to load, or unloaded; the reason says which.
  unavailable,
};

/// "READY", "UNAVAILABLE", "LOADING", "UNLOADING" or "UNKNOWN".
std::string_view model_state_name(model_state s) noexcept;

} // namespace conch::actors
