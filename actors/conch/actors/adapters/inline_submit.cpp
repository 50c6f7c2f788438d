#include "conch/actors/adapters/inline_submit.hpp"

#include <utility>
#include <vector>

#include <caf/actor_addr.hpp>
#include <caf/actor_cast.hpp>
#include <caf/send.hpp>

#include "conch/actors/adapters/adapter.hpp"
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

// Holds the responses of a leased run until the lease ends, so answering
// the client (encoding, writing to a queue) does not keep the instance from
// the next request. One per thread: a lessee runs one job at a time.
class held_responses final : public runtime::response_router {
 public:
  void route(runtime::job_ptr job, runtime::inference_response&& r) override {
    held_.emplace_back(std::move(job), std::move(r));
  }

  void deliver_all() {
    // A callback may submit again on this thread; the outer call delivers
    // what that held. The two lists keep their capacity from run to run.
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

 private:
  using list = std::vector<std::pair<runtime::job_ptr, runtime::inference_response>>;
  list held_;
  list spare_;
  bool delivering_ = false;
};

const std::shared_ptr<held_responses>& thread_held_responses() {
  thread_local auto held = std::make_shared<held_responses>();
  return held;
}

void run_leased(const version_entry& version, size_t index, const runtime::job_ptr& job) {
  auto& lane = *version.lane;
  const auto& bound = lane.bound(index);
  const auto& held = thread_held_responses();
  job->set_model_observer(version.stats);
  job->set_router(held);
  job->times().queue_start = runtime::now_ns();
  runtime::backends::batch jobs{job};
  bool healthy = execute_batch(
    {*bound.instance, bound.context, *version.stats, false, version.config->max_batch_size()},
    jobs);
  if (lane.release(index, !healthy))
    caf::anon_send(version.scheduler, credit_atom_v, index, !healthy);
  job->clear_router();
  held->deliver_all();
}

// Posts `job` to `worker`, the instance leased as `index`, which runs it
// there and ends the lease. False when the worker takes no more tasks: the
// lease has ended then, and the job takes the actor path.
bool post_leased(const version_entry& version, size_t index,
                 const std::shared_ptr<worker_instance>& worker, const runtime::job_ptr& job) {
  job->times().queue_start = runtime::now_ns();
  // Set here, not on the worker: an abort reads it when it gives up on the job.
  job->set_model_observer(version.stats);
  auto run = [stats = version.stats, max_batch = version.config->max_batch_size(), worker,
              job](runtime::backends::backend_instance* instance) {
    job->set_router(thread_held_responses());
    runtime::backends::batch jobs{job};
    if (instance != nullptr)
      return execute_batch({*instance, worker->context(), *stats, false, max_batch}, jobs);
    job->fail(runtime::unavailable("instance '" + worker->context().name + "' is not available"));
    return true;
  };
  // The scheduler is held weakly: a job given up on at the exit timeout may
  // return after the actor system is gone.
  auto done = [lane = version.lane, index,
               scheduler = caf::actor_cast<caf::actor_addr>(version.scheduler),
               job](bool healthy) {
    if (lane->release(index, !healthy))
      if (auto owner = caf::actor_cast<scheduler_actor>(scheduler))
        caf::anon_send(owner, credit_atom_v, index, !healthy);
    job->clear_router();
    thread_held_responses()->deliver_all();
  };
  if (worker->post(job, std::move(run), std::move(done)))
    return true;
  if (version.lane->release(index, false))
    caf::anon_send(version.scheduler, credit_atom_v, index, false);
  return false;
}

} // namespace

bool submit_inline(const version_entry& version, runtime::job_ptr& job) {
  if (!version.lane || input_bytes(job->request()) > inline_input_limit)
    return false;
  if (!accept_for(version, job))
    return true;
  auto index = version.lane->try_lease();
  if (!index)
    return false;
  // Read once: the binding is the lessee's only while it holds the lease.
  if (auto worker = version.lane->bound(*index).worker)
    return post_leased(version, *index, worker, job);
  run_leased(version, *index, job);
  return true;
}

} // namespace conch::actors
