#pragma once

#include <chrono>
#include <cstdint>

namespace conch::runtime {

/// Monotonic nanoseconds, for durations.
inline uint64_t now_ns() noexcept {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count());
}

/// Wall-clock milliseconds since the epoch, for "last inference" timestamps.
inline uint64_t wall_ms() noexcept {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count());
}

} // namespace conch::runtime
