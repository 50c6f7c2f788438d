#include "conch/actors/adapters/inline_submit.hpp"

#include <utility>
#include <vector>

#include <caf/actor_addr.hpp>
#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

#include "conch/actors/adapters/adapter.hpp"
#include "conch/actors/adapters/held_responses.hpp"
#include "conch/actors/adapters/worker_lease.hpp"
#include "conch/actors/instances/instance_execution.hpp"
#include "conch/actors/messages.hpp"
#include "conch/runtime/clock.hpp"

namespace conch::actors {

namespace {

size_t input_bytes(const runtime::inference_request& request) noexcept {
  size_t total = 0;
  for (const auto& input : request.inputs)
    total += input.data.size();
  return total;
}

// The vector of this thread's last inline run, emptied, for its next: a run
// costs no allocation for its batch of one. A run nested in another (a
// model's own request run here) finds it taken and makes its own.
thread_local runtime::backends::batch spare_batch;

void run_leased(const version_entry& version, size_t index, const runtime::job_ptr& job) {
  auto& lane = *version.lane;
  const auto& bound = lane.bound(index);
  const auto& held = thread_held_responses();
  job->set_model_observer(version.stats);
  job->set_router(held);
  runtime::backends::batch jobs = std::move(spare_batch);
  jobs.clear();
  jobs.push_back(job);
  bool healthy = execute_batch(
    {*bound.instance, bound.context, *version.stats, false, version.config->max_batch_size()},
    jobs);
  jobs.clear();
  spare_batch = std::move(jobs);
  if (lane.release(index, !healthy))
    caf::anon_send(version.scheduler, credit_atom_v, index, !healthy);
  job->clear_router();
  held->deliver_all();
}

worker_lease_target target_of(const version_entry& version) {
  return {version.lane, version.stats, version.config->max_batch_size(),
          caf::actor_cast<caf::actor_addr>(version.scheduler)};
}

} // namespace

bool submit_inline(const version_entry& version, runtime::job_ptr& job) {
  if (!version.lane || input_bytes(job->request()) > inline_input_limit)
    return false;
  if (!accept_for(version, job))
    return true;
  auto& lane = *version.lane;
  // A lease of an instance with a worker lasts a whole execution: looking
  // again for a parked one would only spin.
  bool workers = lane.keeps_waiting();
  auto index = lane.try_lease(workers ? 1 : 64);
  if (!index && !workers)
    return false;
  job->times().queue_start = runtime::now_ns();
  if (!index) {
    // Every instance is busy: the job waits in the lane for the next lessee
    // (counted as queued meanwhile), unless the lane takes none now.
    job->set_model_observer(version.stats);
    version.stats->on_enqueue();
    if (!lane.wait(job)) {
      version.stats->on_dequeue(1);
      return false;
    }
    serve_waiting(target_of(version));
    return true;
  }
  // Read once: the binding is the lessee's only while it holds the lease.
  if (auto worker = lane.bound(*index).worker) {
    auto target = target_of(version);
    if (post_leased(target, *index, worker, job))
      return true;
    // The job takes the actor path (the caller sends it); the lease ends
    // after, and what waits meanwhile is served.
    end_failed_post(target, *index);
    serve_waiting(target);
    return false;
  }
  run_leased(version, *index, job);
  return true;
}

} // namespace conch::actors
