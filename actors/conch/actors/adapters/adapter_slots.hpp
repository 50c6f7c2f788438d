#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

#include "conch/actors/adapters/adapter.hpp"

namespace conch::actors {

/// The adapters a frontend may submit to, readable from any thread without a
/// lock. Each slot holds the index of its current adapter in an append-only
/// store sized for every restart the budget allows; an entry is written once,
/// before its index is published, and never changes afterwards.
class adapter_slots {
 public:
  adapter_slots(size_t slots, size_t restart_budget);

  /// Publishes `adapter` as the current one of `slot`. Only the adapter pool
  /// calls this. Returns false when the store is full (budget spent).
  bool publish(size_t slot, adapter_actor adapter);

  /// An adapter, round-robin per calling thread; null before the first
  /// publication. Thread-safe and lock-free.
  const adapter_actor* pick() const noexcept;

  /// The adapter of `key`: always the same one while the adapters stand, so
  /// requests with one key (a sequence's correlation id) reach their
  /// scheduler in the order they were submitted from one thread.
  const adapter_actor* pick_for(size_t key) const noexcept;

  size_t size() const noexcept { return slots_; }

 private:
  static constexpr size_t unpublished = static_cast<size_t>(-1);
  size_t slots_;
  size_t capacity_;
  size_t used_ = 0;
  std::unique_ptr<adapter_actor[]> store_;
  std::unique_ptr<std::atomic<size_t>[]> current_;
};

} // namespace conch::actors
