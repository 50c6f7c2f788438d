#include "conch/actors/frontends/inprocess_frontend.hpp"

namespace conch::actors {

runtime::status inprocess_frontend::start() {
  stopping_.store(false);
  fired_.store(false);
  accepting_.store(true, std::memory_order_release);
  return runtime::status::ok();
}

// admit() counts and then reads accepting_; begin_stop() clears accepting_
// and then reads the count. Both pairs are sequentially consistent, so at
// least one side sees the other: either the stop sees this request in flight
// or this request sees the frontend closed.
inprocess_frontend::admission inprocess_frontend::admit(runtime::inference_job& job) noexcept {
  int64_t before = in_flight_.fetch_add(1, std::memory_order_seq_cst);
  if (!accepting_.load(std::memory_order_seq_cst)) {
    release();
    return admission::stopping;
  }
  if (limit_ > 0 && before >= limit_) {
    release();
    stats_->count(runtime::statistics::request_refusal::inflight);
    return admission::busy;
  }
  job.set_frontend_observer(shared_from_this());
  return admission::admitted;
}

void inprocess_frontend::on_complete(const runtime::inference_job&, const runtime::status&,
                                     uint64_t) {
  release();
}

void inprocess_frontend::begin_stop(std::function<void()> drained) {
  drained_ = std::move(drained);
  accepting_.store(false, std::memory_order_seq_cst);
  stopping_.store(true, std::memory_order_seq_cst);
  if (in_flight_.load(std::memory_order_seq_cst) == 0)
    fire();
}

void inprocess_frontend::abort() {
  // The models cancel what runs; the count falls to zero as they answer.
  accepting_.store(false, std::memory_order_seq_cst);
  if (stopping_.load(std::memory_order_seq_cst) && in_flight_.load(std::memory_order_seq_cst) == 0)
    fire();
}

void inprocess_frontend::release() noexcept {
  if (in_flight_.fetch_sub(1, std::memory_order_seq_cst) == 1
      && stopping_.load(std::memory_order_seq_cst))
    fire();
}

void inprocess_frontend::fire() noexcept {
  if (fired_.exchange(true, std::memory_order_acq_rel) || !drained_)
    return;
  auto drained = std::move(drained_);
  drained_ = nullptr;
  drained();
}

} // namespace conch::actors
