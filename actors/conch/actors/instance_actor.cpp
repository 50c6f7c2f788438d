#include "conch/actors/instance_actor.hpp"

#include <algorithm>
#include <exception>

#include "conch/runtime/batching/job_batch_size.hpp"
#include "conch/runtime/clock.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

instance_actor::instance_actor(caf::actor_config& cfg, backend_model_ptr model,
                               runtime::backends::instance_context context,
                               std::shared_ptr<runtime::statistics::model_statistics> stats,
                               bool decoupled, int32_t max_batch_size)
  : caf::event_based_actor(cfg),
    model_(std::move(model)),
    context_(std::move(context)),
    stats_(std::move(stats)),
    decoupled_(decoupled),
    max_batch_size_(max_batch_size) {}

caf::behavior instance_actor::make_behavior() {
  return {
    [this](init_atom) -> runtime::status { return init(); },
    [this](execute_atom, batch_ptr& jobs) {
      auto scheduler = caf::actor_cast<caf::actor>(current_sender());
      execute(*jobs);
      jobs.reset();
      if (crashed_) {
        quit(caf::sec::runtime_error);
        return;
      }
      // One credit back: the scheduler may hand this instance its next batch.
      send(scheduler, done_atom_v, context_.index);
    },
  };
}

void instance_actor::on_exit() {
  // Finalize the backend on the thread that ran it; the model goes with the
  // last instance that holds it.
  instance_.reset();
  model_.reset();
  stats_.reset();
}

runtime::status instance_actor::init() {
  try {
    auto created = model_->create_instance(context_);
    if (!created)
      return created.error();
    instance_ = std::move(*created);
    return runtime::status::ok();
  } catch (const std::exception& e) {
    return runtime::internal_error("instance '" + context_.name + "' failed to initialize: "
                                   + e.what());
  } catch (...) {
    return runtime::internal_error("instance '" + context_.name + "' failed to initialize");
  }
}

void instance_actor::execute(runtime::backends::batch& jobs) {
  auto start = runtime::now_ns();
  size_t batch_size = 0;
  for (auto& job : jobs) {
    job->times().exec_start = start;
    batch_size += runtime::batching::job_batch_size(*job, max_batch_size_);
  }
  stats_->count_execution(batch_size);
  CONCH_LOG_VERBOSE(1) << "instance '" << context_.name << "' executing " << jobs.size()
                       << " request(s), batch size " << batch_size;
  try {
    instance_->execute(jobs);
  } catch (const std::exception& e) {
    CONCH_LOG_ERROR << "instance '" << context_.name << "' failed: " << e.what();
    crashed_ = true;
    for (auto& job : jobs)
      job->fail(runtime::internal_error("instance '" + context_.name + "' failed: " + e.what()));
  } catch (...) {
    CONCH_LOG_ERROR << "instance '" << context_.name << "' failed";
    crashed_ = true;
    for (auto& job : jobs)
      job->fail(runtime::internal_error("instance '" + context_.name + "' failed"));
  }
  auto end = runtime::now_ns();
  uint64_t input_end = 0;
  uint64_t output_start = 0;
  for (auto& job : jobs) {
    // exec_end is stamped by the job's final response (inference_job::respond),
    // which may already be on its way to another thread.
    const auto& t = job->times();
    input_end = std::max(input_end, t.input_end);
    output_start = std::max(output_start, t.output_start);
    if (!decoupled_ && !job->completed())
      job->fail(runtime::internal_error("model instance '" + context_.name
                                        + "' returned without answering a request"));
  }
  stats_->record_execution_times(batch_size, start, input_end ? input_end : start,
                                 output_start ? output_start : end, end);
}

} // namespace conch::actors
