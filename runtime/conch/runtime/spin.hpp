#pragma once

// Bounded, self-limiting spinning, for the two waits of a round trip that are
// usually short: a thread waiting for an answer that is microseconds away,
// and an idle worker waiting for the next request of a client that sends one
// right after the last answer. On a virtual machine a wake-up costs tens of
// microseconds (the sleeping vCPU must be woken as well), more than the work
// itself; a short spin that catches the event costs neither.

#include <algorithm>
#include <chrono>
#include <thread>

namespace conch::runtime {

/// False on a machine with one hardware thread, where a spin only delays
/// the thread it waits for.
inline bool spinning_pays() noexcept {
  static const bool out = std::thread::hardware_concurrency() > 1;
  return out;
}

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// Whether one waiter's recent spins paid off. A spin that ends in a sleep
/// anyway (a slow model, a busy machine, a client that pauses) costs credit;
/// one that catches its event earns it. Without credit the waiter sleeps at
/// once and tries a spin again every 32nd wait, so a wait that never pays
/// burns at most a few percent of one budget per wait. Not thread-safe: one
/// per waiting thread.
struct spin_record {
  static constexpr int max_credit = 8;
  int credit = max_credit;
  unsigned skipped = 0;

  bool should_spin() noexcept {
    if (credit > 0)
      return true;
    return (++skipped % 32) == 0;
  }
  void caught() noexcept { credit = std::min(credit + 1, max_credit); }
  void missed() noexcept { credit = std::max(credit - 2, 0); }
};

/// The mean of a waiter's recent idle gaps, from going idle to its next
/// event: each new gap weighs an eighth, and counts as at most `cap`, so that
/// one long pause (a client that stops for a minute) is soon outweighed by
/// the gaps after it. A spin is worth trying only while the mean is short: a
/// gap longer than a sleep and a wake-up cost is cheaper slept through, even
/// when a spin would catch its end. Not thread-safe: one per waiting thread.
class gap_mean {
 public:
  explicit gap_mean(std::chrono::nanoseconds cap) noexcept : cap_(cap) {}

  void add(std::chrono::nanoseconds gap) noexcept {
    gap = std::clamp(gap, std::chrono::nanoseconds{0}, cap_);
    mean_ += (gap - mean_) / 8;
  }

  std::chrono::nanoseconds value() const noexcept { return mean_; }

 private:
  std::chrono::nanoseconds cap_;
  std::chrono::nanoseconds mean_{0};
};

/// Whether a spin gives its core to other runnable threads between checks.
enum class spin_yield { no, yes };

/// Spins until `ready()` or `budget` passed; true when ready. The clock is
/// read once per 64 pauses, which cost far more than the check. With
/// spin_yield::yes the thread also yields there (sched_yield), so a thread
/// runnable on the same core, often the one that would make `ready()` true,
/// gets it first; the kernel's yield is weak, so this lessens what a spin
/// takes from others rather than ruling it out.
template <class Ready>
bool spin_until(Ready ready, std::chrono::nanoseconds budget,
                spin_yield yielding = spin_yield::no) noexcept {
  using clock = std::chrono::steady_clock;
  auto until = clock::now() + budget;
  while (!ready()) {
    if (clock::now() >= until)
      return false;
    if (yielding == spin_yield::yes)
      std::this_thread::yield();
    for (int i = 0; i < 64 && !ready(); ++i)
      cpu_relax();
  }
  return true;
}

/// spin_until under `record`'s credit, on a machine where spinning pays:
/// true when `ready()` became true while spinning.
template <class Ready>
bool spin_if_it_pays(spin_record& record, Ready ready, std::chrono::nanoseconds budget,
                     spin_yield yielding = spin_yield::no) noexcept {
  if (!spinning_pays() || !record.should_spin())
    return false;
  if (spin_until(ready, budget, yielding)) {
    record.caught();
    return true;
  }
  record.missed();
  return false;
}

} // namespace conch::runtime
