#pragma once

#include <atomic>
#include <deque>
#include <memory>

#include <caf/typed_event_based_actor.hpp>
#include <caf/response_promise.hpp>

#include "conch/actors/instances/instance_interface.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/scheduling/scheduler_interface.hpp"
#include "conch/actors/instances/worker_instance.hpp"
#include "conch/services/worker_thread.hpp"
#include "conch/runtime/statistics/model_statistics.hpp"

namespace conch::actors {

/// Runs one instance of a backend that may block (Python, sleeps, external
/// runtimes) on a worker_thread of its own, so model code never runs on a
/// thread of the actor system and the actor itself always answers. It
/// speaks the protocol of instance_actor: `init_atom` creates the instance
/// (answering the status and no lendable instance), `execute_atom` runs a
/// batch and answers `done_atom` to the scheduler, a backend that throws ends
/// the actor with an error. The scheduler may hand it a second batch while
/// one runs (model_scheduler's prefetch): the worker takes it up as soon as
/// the first returns, and after a batch whose backend threw it runs none
/// (the scheduler requeues what it had handed on, `execute_atom` with the
/// batch's handed_flag). Its instance, once
/// created, is answered as a
/// worker_instance: the scheduler may lend it to the direct lane, whose
/// lessees post their requests to this worker.
///
/// Told to exit, it finalizes the backend on its worker and ends once that
/// returned. `abort_atom` (the exit timeout passed) gives up on a batch that
/// still runs: its requests are answered UNAVAILABLE and the worker is
/// abandoned, so nothing waits for model code that never returns.
/// What it takes: a model instance's interface, and what its worker tells
/// it (the instance was created, a batch returned, the backend was
/// finalized).
using blocking_instance_actor = model_instance_actor::extend<
  caf::reacts_to<init_atom, runtime::status>, caf::reacts_to<done_atom, bool>,
  caf::reacts_to<stopped_atom>>;

class blocking_instance : public blocking_instance_actor::base {
 public:
  blocking_instance(caf::actor_config& cfg, backend_model_ptr model,
                    runtime::backends::instance_context context,
                    std::shared_ptr<runtime::statistics::model_statistics> stats, bool decoupled,
                    int32_t max_batch_size);

  behavior_type make_behavior() override;
  void on_exit() override;

 private:
  // What only the worker touches: the backend and its instance.
  struct backend_box;

  caf::result<runtime::status, instance_ptr> init();
  void execute(batch_ptr jobs, handed_flag taken);
  void on_executed(bool healthy);
  void on_exit_message(caf::error reason);
  void finalize();
  /// Gives up on the model code that runs, then ends the actor.
  void abandon();
  /// Answers what runs, abandons the worker; the actor goes on (on_exit).
  void give_up();

  std::shared_ptr<backend_box> box_;
  runtime::backends::instance_context context_;
  std::shared_ptr<runtime::statistics::model_statistics> stats_;
  std::shared_ptr<services::worker_thread> worker_;
  /// The instance as lent to the direct lane, once created.
  std::shared_ptr<worker_instance> lent_;
  caf::response_promise init_rp_;
  scheduler_actor scheduler_;
  /// A batch handed to the worker and not returned yet. One handed on while
  /// another ran counts as queued until the worker takes it up, or until it
  /// is given up on, whichever comes first (`taken`).
  struct handed_batch {
    batch_ptr jobs;
    handed_flag taken; // null for a batch the scheduler counted out
  };
  /// Oldest first.
  std::deque<handed_batch> running_;
  caf::error exit_reason_;
  bool decoupled_;
  int32_t max_batch_size_;
  bool initializing_ = false;
  bool exiting_ = false;
  bool finalizing_ = false;
};

} // namespace conch::actors
