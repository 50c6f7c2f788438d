#include "conch/actors/adapters/adapter_slots.hpp"

#include <functional>
#include <thread>

namespace conch::actors {

adapter_slots::adapter_slots(size_t slots, size_t restart_budget)
  : slots_(slots == 0 ? 1 : slots),
    capacity_(slots_ + restart_budget),
    store_(new adapter_actor[capacity_]),
    current_(new std::atomic<size_t>[slots_]) {
  for (size_t i = 0; i < slots_; ++i)
    current_[i].store(unpublished, std::memory_order_relaxed);
}

bool adapter_slots::publish(size_t slot, adapter_actor adapter) {
  if (slot >= slots_ || used_ == capacity_)
    return false;
  store_[used_] = std::move(adapter);
  current_[slot].store(used_, std::memory_order_release);
  ++used_;
  return true;
}

const adapter_actor* adapter_slots::pick() const noexcept {
  // A per-thread cursor spreads threads over the adapters without a shared
  // counter bouncing between cores.
  thread_local size_t cursor = std::hash<std::thread::id>{}(std::this_thread::get_id());
  auto slot = cursor++ % slots_;
  auto index = current_[slot].load(std::memory_order_acquire);
  if (index == unpublished)
    return nullptr;
  return &store_[index];
}

const adapter_actor* adapter_slots::pick_for(size_t key) const noexcept {
  auto index = current_[key % slots_].load(std::memory_order_acquire);
  if (index == unpublished)
    return nullptr;
  return &store_[index];
}

} // namespace conch::actors
