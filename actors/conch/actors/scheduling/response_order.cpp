#include "conch/actors/scheduling/response_order.hpp"

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

namespace conch::actors {

void ordering_router::route(runtime::job_ptr job, runtime::inference_response&& r) {
  held_response h{job, std::make_shared<runtime::inference_response>(std::move(r))};
  if (auto dest = caf::actor_cast<caf::actor>(scheduler_)) {
    caf::anon_send(dest, deliver_atom_v, std::move(h));
    return;
  }
  // The scheduler is gone: nothing is left to order against.
  job->deliver(std::move(*h.response));
}

response_order::response_order(caf::actor_addr scheduler)
  : router_(std::make_shared<ordering_router>(std::move(scheduler))) {}

void response_order::admit(runtime::inference_job& job) {
  job.set_sequence(next_place_++);
  job.set_router(router_);
}

void response_order::arrive(held_response h) {
  auto place = h.job->sequence();
  if (place == next_delivery_ && held_.empty()) {
    ++next_delivery_;
    h.job->deliver(std::move(*h.response));
    return;
  }
  held_.emplace(place, std::move(h));
  for (auto i = held_.find(next_delivery_); i != held_.end(); i = held_.find(next_delivery_)) {
    auto entry = std::move(i->second);
    held_.erase(i);
    ++next_delivery_;
    entry.job->deliver(std::move(*entry.response));
  }
}

void response_order::release() {
  router_.reset();
  for (auto& [place, h] : held_)
    h.job->deliver(std::move(*h.response));
  held_.clear();
}

} // namespace conch::actors
