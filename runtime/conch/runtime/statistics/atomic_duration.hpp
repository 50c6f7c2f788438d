#pragma once

#include <atomic>
#include <cstdint>

#include "conch/runtime/statistics/statistics_snapshot.hpp"

namespace conch::runtime::statistics {

/// A duration_stat that many threads update without a lock. Thread-safe.
/// The two fields are updated one after the other, so a concurrent reader may
/// see the count of an event before its nanoseconds; sums stay exact.
class atomic_duration {
 public:
  /// Counts `n` events that took `ns` nanoseconds together.
  void add(uint64_t ns, uint64_t n = 1) noexcept {
    count_.fetch_add(n, std::memory_order_relaxed);
    ns_.fetch_add(ns, std::memory_order_relaxed);
  }

  /// The current values.
  duration_stat load() const noexcept {
    return {count_.load(std::memory_order_relaxed), ns_.load(std::memory_order_relaxed)};
  }

 private:
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> ns_{0};
};

/// The nanoseconds from `from` to `to`, or 0 when either timestamp is unset
/// (0) or they are out of order: an unset timestamp must never turn into a
/// duration of half the clock's range.
inline uint64_t span_ns(uint64_t from, uint64_t to) noexcept {
  return from != 0 && to >= from ? to - from : 0;
}

} // namespace conch::runtime::statistics
