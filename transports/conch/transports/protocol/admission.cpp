#include "conch/transports/protocol/admission.hpp"

namespace conch::transports::protocol {

void admission::place::give_back() noexcept {
  if (state_) {
    state_->count.fetch_sub(1, std::memory_order_acq_rel);
    state_.reset();
  }
}

admission::place admission::try_take() const {
  auto previous = state_->count.fetch_add(1, std::memory_order_acq_rel);
  if (state_->limit > 0 && previous >= state_->limit) {
    state_->count.fetch_sub(1, std::memory_order_acq_rel);
    if (stats_)
      stats_->count(runtime::statistics::request_refusal::inflight);
    return {};
  }
  return place{state_};
}

admission::ticket admission::try_admit() const {
  auto taken = try_take();
  if (!taken)
    return nullptr;
  return std::make_shared<place>(std::move(taken));
}

} // namespace conch::transports::protocol
