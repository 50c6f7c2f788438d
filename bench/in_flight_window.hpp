#pragma once

#include <atomic>
#include <cstdint>

#include "futex.hpp"

namespace conch::bench {

/// Bounds the requests one client thread has in flight. The owning thread
/// acquires a slot before each submission and sleeps on a futex while the
/// window is full; response callbacks (any thread) release slots and wake it
/// only when it sleeps.
class in_flight_window {
 public:
  explicit in_flight_window(uint32_t limit) noexcept : limit_(limit) {}

  /// Takes a slot, waiting while `limit` requests are in flight. Owner only.
  void acquire() noexcept {
    wait_below(limit_);
    count_.fetch_add(1, std::memory_order_acq_rel);
  }

  /// Returns a slot. Any thread.
  void release() noexcept {
    count_.fetch_sub(1, std::memory_order_seq_cst);
    if (waiting_.load(std::memory_order_seq_cst))
      futex_wake(count_);
  }

  /// Waits until every slot came back. Owner only.
  void drain() noexcept { wait_below(1); }

 private:
  // The owner announces that it sleeps before it re-reads the count, and a
  // releaser lowers the count before it reads the announcement (both
  // sequentially consistent), so one of them always sees the other; the
  // futex re-checks the count in the kernel against a late release.
  void wait_below(uint32_t bound) noexcept {
    for (;;) {
      auto v = count_.load(std::memory_order_acquire);
      if (v < bound)
        return;
      waiting_.store(true, std::memory_order_seq_cst);
      v = count_.load(std::memory_order_seq_cst);
      if (v >= bound)
        futex_wait(count_, v);
      waiting_.store(false, std::memory_order_relaxed);
    }
  }

  uint32_t limit_;
  std::atomic<uint32_t> count_{0};
  std::atomic<bool> waiting_{false};
};

} // namespace conch::bench
