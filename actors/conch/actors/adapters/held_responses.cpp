#include "conch/actors/adapters/held_responses.hpp"

namespace conch::actors {

void held_responses::deliver_all() {
  if (delivering_)
    return;
  delivering_ = true;
  while (!held_.empty()) {
    spare_.swap(held_);
    for (auto& [job, r] : spare_)
      job->deliver(std::move(r));
    spare_.clear();
  }
  delivering_ = false;
}

const std::shared_ptr<held_responses>& thread_held_responses() {
  thread_local auto held = std::make_shared<held_responses>();
  return held;
}

} // namespace conch::actors
