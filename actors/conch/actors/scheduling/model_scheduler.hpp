#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/typed_event_based_actor.hpp>
#include <caf/response_promise.hpp>

#include "conch/actors/scheduling/direct_lane.hpp"
#include "conch/actors/scheduling/instance_pool.hpp"
#include "conch/actors/scheduling/model_loader.hpp"
#include "conch/actors/scheduling/scheduler_phase.hpp"
#include "conch/actors/scheduling/scheduler_hooks.hpp"
#include "conch/actors/supervision/guarded_actor.hpp"
#include "conch/actors/instances/instance_interface.hpp"
#include "conch/actors/scheduling/late_answers.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/scheduling/model_readiness.hpp"
#include "conch/actors/scheduling/response_order.hpp"
#include "conch/actors/scheduling/scheduler_interface.hpp"
#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/batching/job_queue.hpp"
#include "conch/runtime/response_cache.hpp"
#include "conch/runtime/statistics/model_statistics.hpp"

namespace conch::actors {

/// What a scheduler needs to load and serve one model version.
struct scheduler_spec {
  runtime::backends::model_context context;
  runtime::backends::model_factory factory;
  std::shared_ptr<runtime::statistics::model_statistics> stats;
  /// How many times a crashed instance is restarted before the version fails.
  size_t restart_budget = 3;
  /// Blocking backends get threads of their own. Deterministic tests turn
  /// this off so that every actor runs on the test scheduler.
  bool allow_detached = true;
  /// Where idle instances are lent to submitting threads; null when the
  /// model must go through the queue (see lane_eligible). Instances of a
  /// blocking backend are never lent.
  std::shared_ptr<direct_lane> lane;
  /// The server's response cache where the configuration enables it (and
  /// the server has one); null otherwise.
  std::shared_ptr<runtime::response_cache> cache;
  /// Where the instances' readiness probes are published; may be null.
  std::shared_ptr<model_readiness> readiness;
};

/// Serves one model version: loads its backend and instances (`init_atom`),
/// queues and batches jobs, hands each idle instance one batch at a time
/// (its credit), or two to the one instance of a blocking backend that does
/// not batch dynamically (`prefetch_`: its worker starts the next request the
/// moment the last returns, rather than a round trip through this actor
/// later), reorders responses when the configuration asks for it,
/// cancels queued jobs, and drains on `stop_atom` (or cancels everything on
/// `abort_atom`). Ends with an error when its instances keep crashing.
///
/// While its queue is empty it lends idle instances to its direct lane, and
/// recalls them when work queues up or it drains; a lessee returns one with
/// `credit_atom` when it was recalled or crashed.
///
/// A handler that throws fails the request it handled, not the scheduler
/// (guarded). Its interface is scheduler_actor.
class model_scheduler : public guarded<scheduler_actor::base> {
 public:
  model_scheduler(caf::actor_config& cfg, scheduler_spec spec);
  ~model_scheduler() override;

  behavior_type make_behavior() override;
  void on_exit() override;

 private:
  // -- loading ---------------------------------------------------------------
  caf::result<runtime::status> start_loading();
  void on_model_loaded(backend_model_ptr model, runtime::status st);
  void spawn_instance(size_t index);
  void on_instance_init(size_t index, model_instance_actor handle, runtime::status st,
                        instance_ptr instance);
  void fail_loading(runtime::status st);
  /// Ending without a drain: lets go of the model (model_loader::release).
  void release_model();
  /// At the end of a drain: true while the model is finalized on a thread.
  bool finalizing_model();

  // -- request path ----------------------------------------------------------
  void admit(runtime::job_ptr job);
  void dispatch();
  void run_batch(size_t index, runtime::backends::batch jobs);
  /// Hands a busy instance its next batch (prefetch_), while work is queued.
  void prefetch();
  /// Takes the next batch the queue releases; empty when none is due. A
  /// batch handed on (`counted_out` false) leaves the pending count when the
  /// instance takes it up (blocking_instance).
  runtime::backends::batch take_batch(size_t index, bool counted_out = true);
  /// Takes the batch handed on to `slot` back off the pending count, unless
  /// its instance's worker took it up first; true when this did.
  bool take_back(instance_slot& slot);
  /// Puts back, in order and at the head of the queue, the jobs of a batch
  /// an instance was handed but never ran.
  void requeue(runtime::backends::batch& jobs, const std::string& instance);
  /// Queues again the jobs of a finished batch whose backend rescheduled
  /// them (iterative sequences); fails those the queue does not take.
  /// Returns the jobs queued again.
  std::vector<const runtime::inference_job*> reschedule(const runtime::backends::batch& jobs);
  void on_done(size_t index, const caf::strong_actor_ptr& sender);
  void expire_and_cancel(uint64_t now);
  void arm_timer(uint64_t wake_at);

  // -- the direct lane ---------------------------------------------------------
  bool lending() const;
  void lend_idle();
  void recall();
  /// Queues the jobs that wait in the lane, which takes none until it lends
  /// again.
  void take_waiting();
  void on_credit(size_t index, bool crashed);
  void retire_lane();
  uint64_t now() const;

  // -- stopping --------------------------------------------------------------
  caf::result<runtime::status> begin_drain();
  void abort_all();
  void maybe_finish_drain();
  void on_instance_down(const caf::down_msg& msg);
  void replace_instance(size_t index, const caf::error& reason);
  void fail_queued(const runtime::status& st, runtime::failure_kind kind,
                   bool bypass_router = false);

  scheduler_spec spec_;
  std::shared_ptr<const inference::ModelConfig> config_;
  /// Why the queue could not be made as configured (an initial state's
  /// file); the load fails with it. Declared before queue_, which the
  /// constructor makes with it.
  runtime::status queue_error_;
  /// The dynamic batcher's queue, or the sequence batcher's.
  std::unique_ptr<runtime::batching::job_queue> queue_;
  backend_model_ptr model_;
  /// The threads the backend is loaded and finalized on (deterministic
  /// tests load on the test scheduler instead).
  model_loader loader_;
  /// Its load and its stop.
  scheduler_phase phase_;
  /// The instances: their slots, which are idle, alive and lent.
  instance_pool pool_;
  /// Puts responses in arrival order; none unless the model asks for it.
  std::optional<response_order> order_;
  std::shared_ptr<runtime::cancel_listener> listener_;
  /// Given to the jobs that wait in the lane (made when it first lends).
  std::shared_ptr<runtime::cancel_listener> lane_listener_;
  /// Jobs whose batch returned before their final response: a drain waits
  /// for them, an abort cancels them.
  std::optional<late_answers> late_;
  caf::response_promise load_rp_;
  std::vector<caf::response_promise> drain_rps_;
  uint64_t timer_at_ = 0;
  uint64_t timer_generation_ = 0;
  size_t pending_inits_ = 0;
  /// The model answers after its execute returns (decoupled).
  bool decoupled_ = false;
  /// A blocking model's one instance is handed its next batch early.
  bool prefetch_ = false;
};

} // namespace conch::actors
