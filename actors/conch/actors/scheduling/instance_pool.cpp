#include "conch/actors/scheduling/instance_pool.hpp"

#include <algorithm>

namespace conch::actors {

void instance_pool::clear() noexcept {
  slots_.clear();
  idle_.clear();
  alive_ = 0;
  lent_ = 0;
}

size_t instance_pool::find(const caf::actor_addr& source) const {
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].handle && slots_[i].handle.address() == source)
      return i;
  return slots_.size();
}

bool instance_pool::any_running() const noexcept {
  return std::any_of(slots_.begin(), slots_.end(),
                     [](const instance_slot& slot) { return slot.running != nullptr; });
}

void instance_pool::started(size_t index, model_instance_actor handle) {
  auto& slot = slots_[index];
  slot.handle = std::move(handle);
  slot.ready = false;
  ++alive_;
}

void instance_pool::ended(size_t index) {
  auto& slot = slots_[index];
  --alive_;
  slot.handle = nullptr;
  slot.ready = false;
  idle_.erase(std::remove(idle_.begin(), idle_.end(), index), idle_.end());
}

void instance_pool::returned(size_t index) {
  slots_[index].lent = false;
  --lent_;
}

} // namespace conch::actors
