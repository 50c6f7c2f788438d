#include "conch/transports/protocol/admission.hpp"

namespace conch::transports::protocol {

admission::ticket admission::try_admit() const {
  auto previous = state_->count.fetch_add(1, std::memory_order_acq_rel);
  if (state_->limit > 0 && previous >= state_->limit) {
    state_->count.fetch_sub(1, std::memory_order_acq_rel);
    if (stats_)
      stats_->count(runtime::statistics::request_refusal::inflight);
    return nullptr;
  }
  auto s = state_;
  // The deleter gives the place back; the pointer itself is never read.
  return ticket{static_cast<void*>(s.get()),
                [s](void*) { s->count.fetch_sub(1, std::memory_order_acq_rel); }};
}

} // namespace conch::transports::protocol
