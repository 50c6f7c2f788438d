#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "futex.hpp"

namespace conch::bench {

/// How a client thread waits for the answer to its one request in flight.
enum class wait_mode {
  /// A mutex and a condition variable, no spinning.
  condvar,
  /// Straight to a futex sleep.
  futex,
  /// Spin up to a budget, then a futex sleep.
  spin_then_futex,
};

/// A reusable one-shot event: a Conch thread signals it from the response
/// callback, the client thread waits on it. One waiter, one signaller; the
/// waiter re-arms it.
class completion {
 public:
  explicit completion(wait_mode mode, std::chrono::nanoseconds spin = {}) noexcept
    : mode_(mode), spin_(spin) {}

  /// Arms the event for the next round. Waiter only, while no signal is due.
  void reset() noexcept {
    state_.store(pending, std::memory_order_relaxed);
    done_ = false;
  }

  /// Fires the event; wakes the waiter only when it went to sleep. After the
  /// waiter may have returned, it touches the futex word only as a syscall
  /// argument, so the event may be destroyed as soon as wait() returns.
  void signal() noexcept {
    if (mode_ == wait_mode::condvar) {
      std::lock_guard<std::mutex> guard{mu_};
      done_ = true;
      cv_.notify_one();
      return;
    }
    if (state_.exchange(done, std::memory_order_acq_rel) == sleeping)
      futex_wake(state_);
  }

  /// Blocks until signal() ran.
  void wait() noexcept {
    if (mode_ == wait_mode::condvar) {
      std::unique_lock<std::mutex> lock{mu_};
      cv_.wait(lock, [this] { return done_; });
      return;
    }
    if (mode_ == wait_mode::spin_then_futex && spin_wait())
      return;
    uint32_t expected = pending;
    if (!state_.compare_exchange_strong(expected, sleeping, std::memory_order_acq_rel))
      return;
    while (state_.load(std::memory_order_acquire) == sleeping)
      futex_wait(state_, sleeping);
  }

 private:
  static constexpr uint32_t pending = 0;
  static constexpr uint32_t done = 1;
  static constexpr uint32_t sleeping = 2;

  // True when the event fired within the spin budget. The clock is read
  // every 64 pauses only, so it costs little next to the pause itself.
  bool spin_wait() noexcept {
    auto deadline = std::chrono::steady_clock::now() + spin_;
    for (;;) {
      for (int i = 0; i < 64; ++i) {
        if (state_.load(std::memory_order_acquire) == done)
          return true;
        cpu_relax();
      }
      if (std::chrono::steady_clock::now() >= deadline)
        return false;
    }
  }

  wait_mode mode_;
  std::chrono::nanoseconds spin_;
  std::atomic<uint32_t> state_{pending};
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
};

} // namespace conch::bench
