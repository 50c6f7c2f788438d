#pragma once

#include <memory>

#include <caf/typed_event_based_actor.hpp>

#include "conch/actors/instances/instance_interface.hpp"
#include "conch/actors/messages.hpp"
#include "conch/runtime/statistics/model_statistics.hpp"

namespace conch::actors {

/// Runs one backend instance: creates it on `init_atom` (answering the status
/// and the instance, which the scheduler may lend to its direct lane while
/// this actor is idle), executes batches on `execute_atom` and answers
/// `done_atom` (one credit back to the scheduler).
/// Spawned detached when the backend may block, so a slow model never holds a
/// scheduler thread. A backend that throws fails its batch and then ends the
/// actor with an error, so the scheduler can restart a fresh instance.
class instance_actor : public model_instance_actor::base {
 public:
  instance_actor(caf::actor_config& cfg, backend_model_ptr model,
                 runtime::backends::instance_context context,
                 std::shared_ptr<runtime::statistics::model_statistics> stats, bool decoupled,
                 int32_t max_batch_size);

  behavior_type make_behavior() override;
  void on_exit() override;

 private:
  runtime::status init();
  /// Runs `jobs` (none: a batch given up on) and credits the scheduler.
  void execute(batch_ptr& jobs, bool handed_on);

  backend_model_ptr model_;
  runtime::backends::instance_context context_;
  std::shared_ptr<runtime::statistics::model_statistics> stats_;
  instance_ptr instance_;
  bool decoupled_;
  int32_t max_batch_size_;
  bool crashed_ = false;
};

} // namespace conch::actors
