#include "conch/actors/adapters/worker_lease.hpp"

#include <utility>

#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

#include "conch/actors/adapters/held_responses.hpp"
#include "conch/actors/instances/instance_execution.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/scheduling/scheduler_interface.hpp"

namespace conch::actors {

namespace {

void fail_cancelled(runtime::statistics::model_statistics& stats, const runtime::job_ptr& job) {
  stats.on_dequeue(1);
  job->fail(runtime::cancelled("request cancelled"), runtime::failure_kind::cancelled);
}

// The waiting job to run next, the cancelled ones before it answered.
runtime::job_ptr next_live(const worker_lease_target& target) {
  for (;;) {
    auto job = target.lane->next_waiting();
    if (!job || !job->is_cancelled())
      return job;
    fail_cancelled(*target.stats, job);
  }
}

void end_lease(const worker_lease_target& target, size_t index, bool healthy) {
  if (target.lane->release(index, !healthy))
    if (auto owner = caf::actor_cast<scheduler_actor>(target.scheduler))
      caf::anon_send(owner, credit_atom_v, index, !healthy);
}

} // namespace

bool post_leased(const worker_lease_target& target, size_t index,
                 const std::shared_ptr<worker_instance>& worker, const runtime::job_ptr& job) {
  // Set here, not on the worker: an abort reads it when it gives up on the job.
  job->set_model_observer(target.stats);
  auto run = [stats = target.stats, max_batch = target.max_batch_size, worker,
              job](runtime::backends::backend_instance* instance) {
    job->set_router(thread_held_responses());
    runtime::backends::batch jobs{job};
    if (instance != nullptr)
      return execute_batch({*instance, worker->context(), *stats, false, max_batch}, jobs);
    job->fail(runtime::unavailable("instance '" + worker->context().name + "' is not available"));
    return true;
  };
  auto done = [target, index, worker, job](bool healthy) {
    job->clear_router();
    // The job that waited longest runs next on this instance, still leased:
    // no hand-off, no wake-up. The lease ends when none waits.
    bool leased = false;
    if (healthy) {
      if (auto next = next_live(target)) {
        target.stats->on_dequeue(1);
        leased = post_leased(target, index, worker, next);
        if (!leased) {
          to_scheduler(target, std::move(next));
          end_failed_post(target, index);
        }
      } else {
        end_lease(target, index, true);
      }
    } else {
      end_lease(target, index, false);
    }
    thread_held_responses()->deliver_all();
    if (!leased)
      serve_waiting(target);
  };
  return worker->post(job, std::move(run), std::move(done));
}

void end_failed_post(const worker_lease_target& target, size_t index) {
  // As a crash: the instance goes back to the scheduler with a credit
  // whether or not it was recalled, never parked again with a worker that
  // takes nothing. Its instance is ending; the scheduler replaces or drops it.
  end_lease(target, index, false);
}

void serve_waiting(const worker_lease_target& target) {
  auto& lane = *target.lane;
  while (lane.has_waiting()) {
    auto index = lane.try_lease(1);
    if (!index)
      return;  // every instance is leased: their lessees serve what waits
    auto job = next_live(target);
    if (!job) {
      end_lease(target, *index, true);
      continue;
    }
    target.stats->on_dequeue(1);
    // Read once: the binding is the lessee's only while it holds the lease.
    auto worker = lane.bound(*index).worker;
    if (!worker || !post_leased(target, *index, worker, job)) {
      // The job first: a drain may end on the credit the lease sends.
      to_scheduler(target, std::move(job));
      end_failed_post(target, *index);
    }
  }
}

lane_cancel_listener::lane_cancel_listener(
  std::weak_ptr<direct_lane> lane, std::shared_ptr<runtime::statistics::model_statistics> stats,
  caf::actor_addr scheduler)
  : lane_(std::move(lane)), stats_(std::move(stats)), scheduler_(std::move(scheduler)) {}

void lane_cancel_listener::on_cancel() noexcept {
  if (auto lane = lane_.lock())
    for (auto& job : lane->take_cancelled())
      fail_cancelled(*stats_, job);
  if (auto owner = caf::actor_cast<scheduler_actor>(scheduler_))
    caf::anon_send(owner, cancel_atom_v);
}

void to_scheduler(const worker_lease_target& target, runtime::job_ptr job) {
  if (auto owner = caf::actor_cast<scheduler_actor>(target.scheduler)) {
    caf::anon_send(owner, std::move(job));
    return;
  }
  job->fail(runtime::unavailable("the model version is not available"),
            runtime::failure_kind::other);
}

} // namespace conch::actors
