#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace conch::runtime {

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
constexpr std::string_view model_state_name(model_state s) noexcept {
  switch (s) {
    case model_state::unknown: return "UNKNOWN";
    case model_state::loading: return "LOADING";
    case model_state::ready: return "READY";
    case model_state::unloading: return "UNLOADING";
    case model_state::unavailable: return "UNAVAILABLE";
  }
  return "UNKNOWN";
}

/// One row of the repository index, as the server keeps it and the
/// frontends encode it. `version` is empty and `state` unknown for a model
/// that was found but never loaded.
struct index_entry {
  std::string name;
  std::string version;
  model_state state = model_state::unknown;
  /// Why the version is not READY; empty otherwise.
  std::string reason;
};

} // namespace conch::runtime
