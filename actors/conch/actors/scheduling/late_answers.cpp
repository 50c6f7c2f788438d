#include "conch/actors/scheduling/late_answers.hpp"

#include <algorithm>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

#include "conch/actors/messages.hpp"

namespace conch::actors {

void scheduler_drain_waker::arm() {
  std::lock_guard<std::mutex> guard{mu_};
  armed_ = true;
}

void scheduler_drain_waker::on_completed() noexcept {
  {
    std::lock_guard<std::mutex> guard{mu_};
    if (!armed_)
      return;
    armed_ = false;
  }
  if (auto dest = caf::actor_cast<caf::actor>(scheduler_))
    caf::anon_send(dest, drain_atom_v);
}

late_answers::late_answers(caf::actor_addr scheduler)
  : waker_(std::make_shared<scheduler_drain_waker>(std::move(scheduler))) {}

void late_answers::expect(const runtime::job_ptr& job) {
  if (!job->set_completion_listener(waker_))
    return;
  jobs_.push_back(job);
  // Completed jobs are pruned now and then, so the list stays short.
  if (jobs_.size() >= 64)
    prune();
}

bool late_answers::pending() {
  waker_->arm();
  prune();
  return !jobs_.empty();
}

void late_answers::cancel_all() {
  for (auto& weak : jobs_)
    if (auto job = weak.lock())
      job->cancel();
  jobs_.clear();
}

void late_answers::prune() {
  auto finished = [](const std::weak_ptr<runtime::inference_job>& weak) {
    auto job = weak.lock();
    return !job || job->completed();
  };
  jobs_.erase(std::remove_if(jobs_.begin(), jobs_.end(), finished), jobs_.end());
}

} // namespace conch::actors
