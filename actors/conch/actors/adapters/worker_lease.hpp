#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <caf/actor_addr.hpp>

#include "conch/actors/instances/worker_instance.hpp"
#include "conch/actors/scheduling/direct_lane.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/statistics/model_statistics.hpp"

namespace conch::actors {

/// What running jobs on a version's lent worker instances takes, from any
/// thread: its lane, its statistics, its batch limit and its scheduler (held
/// weakly: a job given up on at the exit timeout may return after the actor
/// system is gone).
struct worker_lease_target {
  std::shared_ptr<direct_lane> lane;
  std::shared_ptr<runtime::statistics::model_statistics> stats;
  int32_t max_batch_size = 0;
  caf::actor_addr scheduler;
};

/// Posts accepted `job` to `worker`, the instance leased as `index`, which
/// runs it there. When it returns, the worker runs the job that has waited
/// longest in the lane on the same instance, still leased; with none
/// waiting it ends the lease and serves what waits (serve_waiting). False
/// when the worker takes no more tasks: the job and the lease are still the
/// caller's, who hands the job on and then calls end_failed_post.
bool post_leased(const worker_lease_target& target, size_t index,
                 const std::shared_ptr<worker_instance>& worker, const runtime::job_ptr& job);

/// Ends the lease of `index` after post_leased failed: its instance is
/// ending, and goes back to the scheduler as a crashed one does.
void end_failed_post(const worker_lease_target& target, size_t index);

/// Runs the jobs waiting in the lane on the instances parked there now,
/// each leased and posted to its worker; returns when none waits or none is
/// parked. Whoever leaves a job in the lane, ends a lease or parks an
/// instance calls it after, so a job never waits while an instance is idle.
void serve_waiting(const worker_lease_target& target);

/// Hears of the cancellation of a job that waits in a lane: answers the
/// lane's cancelled jobs CANCELLED at once, and tells the scheduler too, in
/// case the job has moved to its queue meanwhile.
class lane_cancel_listener final : public runtime::cancel_listener {
 public:
  lane_cancel_listener(std::weak_ptr<direct_lane> lane,
                       std::shared_ptr<runtime::statistics::model_statistics> stats,
                       caf::actor_addr scheduler);
  void on_cancel() noexcept override;

 private:
  std::weak_ptr<direct_lane> lane_;
  std::shared_ptr<runtime::statistics::model_statistics> stats_;
  caf::actor_addr scheduler_;
};

/// Sends an accepted job to its version's scheduler, the actor path; fails
/// it when the scheduler is gone.
void to_scheduler(const worker_lease_target& target, runtime::job_ptr job);

} // namespace conch::actors
