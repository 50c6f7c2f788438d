// The direct lane side of model_scheduler: lending idle instances to the
// threads that submit requests, recalling them, and taking them back.

#include "conch/actors/scheduling/model_scheduler.hpp"

#include <caf/actor_cast.hpp>

#include "conch/actors/adapters/worker_lease.hpp"

namespace conch::actors {

bool model_scheduler::lending() const {
  return spec_.lane && model_ && phase_.serving();
}

void model_scheduler::lend_idle() {
  if (!lending() || !queue_->empty() || pool_.idle().empty())
    return;
  // Model code that may block is lent only with a worker of its own to run
  // on; such an instance stays here otherwise.
  bool blocking = model_->blocking();
  bool lent = pool_.lend_idle([&](size_t index, const instance_slot& slot) {
    if (blocking && !slot.worker)
      return false;
    // A worker's lessee never touches the model, whose last reference must
    // go where the model is finalized: the lane does not hold it then.
    decltype(model_) model;
    if (!slot.worker)
      model = model_;
    spec_.lane->park(index, {std::move(model), slot.instance, slot.context, slot.worker});
    return true;
  });
  if (!lent)
    return;
  if (!lane_listener_) {
    lane_listener_ = std::make_shared<lane_cancel_listener>(
      spec_.lane, spec_.stats, caf::actor_cast<caf::actor_addr>(this));
    spec_.lane->set_cancel_listener(lane_listener_);
  }
  spec_.lane->want(false);
  // Nothing waits in a lane that did not lend; an instance replaced while
  // its lane lent the others (it crashed there) may find jobs waiting.
  if (spec_.lane->has_waiting())
    serve_waiting({spec_.lane, spec_.stats, spec_.context.config->max_batch_size(),
                   caf::actor_cast<caf::actor_addr>(this)});
}

void model_scheduler::take_waiting() {
  // Accepted by the lane already: they queue as admitted jobs do, in the
  // order they waited, whatever the phase (a drain serves them).
  for (auto& job : spec_.lane->close_waiting()) {
    spec_.stats->on_dequeue(1);
    if (job->is_cancelled()) {
      job->fail(runtime::cancelled("request cancelled"), runtime::failure_kind::cancelled);
      continue;
    }
    if (auto st = queue_->enqueue(job, now()); !st) {
      job->fail(std::move(st), runtime::failure_kind::rejected);
      continue;
    }
    spec_.stats->on_enqueue();
    job->set_cancel_listener(listener_);
  }
}

void model_scheduler::recall() {
  if (!spec_.lane)
    return;
  spec_.lane->want(true);
  take_waiting();
  // Leased ones come back with a credit.
  pool_.reclaim_lent([&](size_t index) { return spec_.lane->reclaim(index); });
}

void model_scheduler::on_credit(size_t index, bool crashed) {
  if (index >= pool_.size() || !pool_[index].lent)
    return;
  auto& slot = pool_[index];
  pool_.returned(index);
  if (slot.replace_on_return) {
    slot.replace_on_return = false;
    replace_instance(index, slot.down_reason);
  } else if (crashed) {
    // The backend threw on a submitting thread: end the actor, and its down
    // message replaces it as if it had thrown there.
    slot.ready = false;
    send_exit(slot.handle, caf::make_error(caf::sec::runtime_error));
  } else {
    pool_.make_idle(index);
  }
  dispatch();
  maybe_finish_drain();
}

void model_scheduler::retire_lane() {
  if (!spec_.lane)
    return;
  spec_.lane->want(true);
  take_waiting();  // the caller answers what is queued
  // A leased instance keeps its binding until its lessee is done with it.
  for (size_t i = 0; i < pool_.size(); ++i)
    if (!pool_[i].lent || spec_.lane->reclaim(i))
      spec_.lane->unbind(i);
  pool_.forget_lent();
}

} // namespace conch::actors
