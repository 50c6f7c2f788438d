#include "conch/actors/scheduling/direct_lane.hpp"

namespace conch::actors {

// The scheduler writes `wanted_` and then looks at the slots; a lessee
// writes its slot and then looks at `wanted_`. Both sides use sequentially
// consistent operations, so at least one of them sees the other's write: a
// released instance is never left parked while the scheduler waits for it.

direct_lane::direct_lane(size_t slots)
  : size_(slots),
    states_(new std::atomic<uint8_t>[slots]),
    bindings_(new binding[slots]) {
  for (size_t i = 0; i < slots; ++i)
    states_[i].store(owned, std::memory_order_relaxed);
}

void direct_lane::park(size_t index, binding b) {
  bindings_[index] = std::move(b);
  states_[index].store(parked, std::memory_order_seq_cst);
}

bool direct_lane::reclaim(size_t index) {
  uint8_t expected = parked;
  return states_[index].compare_exchange_strong(expected, owned, std::memory_order_seq_cst);
}

void direct_lane::want(bool wanted) noexcept {
  wanted_.store(wanted, std::memory_order_seq_cst);
}

void direct_lane::unbind(size_t index) {
  bindings_[index] = binding{};
}

std::optional<size_t> direct_lane::try_lease() noexcept {
  // A lease lasts a few microseconds: when every instance is leased, looking
  // again a few times is cheaper than the actor path, and bounded.
  for (int attempt = 0; attempt < 64; ++attempt) {
    if (wanted_.load(std::memory_order_seq_cst))
      return std::nullopt;
    // Start where the last lease started, so that concurrent lessees spread
    // over the instances instead of all racing for the first.
    size_t start = hint_.fetch_add(1, std::memory_order_relaxed);
    for (size_t n = 0; n < size_; ++n) {
      size_t i = (start + n) % size_;
      uint8_t expected = parked;
      if (states_[i].compare_exchange_strong(expected, leased, std::memory_order_seq_cst))
        return i;
    }
    __builtin_ia32_pause();
  }
  return std::nullopt;
}

bool direct_lane::release(size_t index, bool crashed) noexcept {
  if (crashed) {
    states_[index].store(owned, std::memory_order_seq_cst);
    return true;
  }
  states_[index].store(parked, std::memory_order_seq_cst);
  if (!wanted_.load(std::memory_order_seq_cst))
    return false;
  // The scheduler may reclaim it at the same moment; one of us wins.
  uint8_t expected = parked;
  return states_[index].compare_exchange_strong(expected, owned, std::memory_order_seq_cst);
}

} // namespace conch::actors
