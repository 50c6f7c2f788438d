#include "conch/actors/instances/instance_actor.hpp"

#include <exception>

#include "conch/actors/instances/instance_execution.hpp"
#include "conch/actors/scheduling/scheduler_interface.hpp"

namespace conch::actors {

instance_actor::instance_actor(caf::actor_config& cfg, backend_model_ptr model,
                               runtime::backends::instance_context context,
                               std::shared_ptr<runtime::statistics::model_statistics> stats,
                               bool decoupled, int32_t max_batch_size)
  : model_instance_actor::base(cfg),
    model_(std::move(model)),
    context_(std::move(context)),
    stats_(std::move(stats)),
    decoupled_(decoupled),
    max_batch_size_(max_batch_size) {}

instance_actor::behavior_type instance_actor::make_behavior() {
  return {
    [this](init_atom) -> caf::result<runtime::status, instance_ptr> {
      auto st = init();
      instance_ptr lendable = st ? instance_ : nullptr;
      return {std::move(st), std::move(lendable)};
    },
    [this](execute_atom, batch_ptr& jobs) { execute(jobs, false); },
    // Its scheduler hands batches on only to a blocking_instance; taken up
    // here as the worker of one takes it up, and credited back either way.
    [this](execute_atom, batch_ptr& jobs, handed_flag& taken) {
      if (taken->exchange(true))
        jobs.reset(); // given up on before it came up
      else
        stats_->on_dequeue(jobs->size());
      execute(jobs, true);
    },
    // Past the exit timeout: nothing runs here between messages.
    [](abort_atom) {},
  };
}

void instance_actor::execute(batch_ptr& jobs, bool handed_on) {
  auto scheduler = caf::actor_cast<scheduler_actor>(current_sender());
  instance_runner runner{*instance_, context_, *stats_, decoupled_, max_batch_size_};
  if (jobs)
    crashed_ = handed_on ? !execute_uncancelled(runner, *jobs) : !execute_batch(runner, *jobs);
  jobs.reset();
  if (crashed_) {
    quit(caf::sec::runtime_error);
    return;
  }
  // One credit back: the scheduler may hand this instance its next batch.
  send(scheduler, done_atom_v, context_.index);
}

void instance_actor::on_exit() {
  // Finalize the backend on the thread that ran it, unless the scheduler's
  // direct lane still holds it; the model goes with the last instance.
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

} // namespace conch::actors
