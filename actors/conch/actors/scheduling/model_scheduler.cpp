#include "conch/actors/scheduling/model_scheduler.hpp"

#include <algorithm>
#include <chrono>

#include "conch/actors/scheduling/scheduler_hooks.hpp"
#include "conch/runtime/batching/batch_queue.hpp"
#include "conch/runtime/batching/batcher_config.hpp"
#include "conch/runtime/batching/sequence_queue.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

using runtime::failure_kind;
using runtime::status;

namespace {

std::unique_ptr<runtime::batching::job_queue> make_queue(const scheduler_spec& spec,
                                                         status& error) {
  const auto& config = *spec.context.config;
  // The spawn runs on the repository's thread: what the configuration
  // makes the queue allocate must not throw there. A queue that cannot be
  // made fails the load (start_loading) instead.
  try {
    if (config.has_sequence_batching()) {
      auto settings = runtime::batching::sequence_config::from(config, spec.context.model_path,
                                                               instance_contexts(config).size());
      if (settings)
        return std::make_unique<runtime::batching::sequence_queue>(std::move(*settings));
      error = settings.error();
    }
    return std::make_unique<runtime::batching::batch_queue>(
      runtime::batching::batcher_config_from(config));
  } catch (const std::exception& e) {
    error = runtime::internal_error("model '" + spec.context.name
                                    + "': its scheduler's queue could not be made: " + e.what());
  }
  return std::make_unique<runtime::batching::batch_queue>(runtime::batching::batcher_config{});
}

std::string role_of(const scheduler_spec& spec) {
  return "the scheduler of model '" + spec.context.name + "' version "
         + std::to_string(spec.context.version);
}

} // namespace

model_scheduler::model_scheduler(caf::actor_config& cfg, scheduler_spec spec)
  : guarded(cfg, role_of(spec)),
    spec_(std::move(spec)),
    config_(spec_.context.config),
    queue_(make_queue(spec_, queue_error_)),
    loader_("model '" + spec_.context.name + "' version " + std::to_string(spec_.context.version)) {
  decoupled_ = answers_after_execute(*config_);
}

model_scheduler::~model_scheduler() = default;

model_scheduler::behavior_type model_scheduler::make_behavior() {
  auto self_addr = address();
  listener_ = std::make_shared<scheduler_cancel_listener>(self_addr);
  late_.emplace(self_addr);
  if (needs_ordering(*config_))
    order_.emplace(self_addr);
  // Instances are monitored, not linked: a link would carry a `kill` sent to
  // one instance up the tree. This scheduler ends its instances itself.
  set_down_handler([this](caf::down_msg& msg) { on_instance_down(msg); });
  set_exit_handler([this](caf::exit_msg& msg) {
    // Our parent is stopping us without a drain: give up at once.
    abort_all();
    quit(msg.reason);
  });
  return {
    [this](init_atom) -> caf::result<status> { return start_loading(); },
    [this](init_atom, backend_model_ptr& model, status& st) {
      on_model_loaded(std::move(model), std::move(st));
    },
    [this](runtime::job_ptr& job) {
      run_guarded(job, role(), [&] { admit(job); });
    },
    [this](done_atom, size_t index) { on_done(index, current_sender()); },
    [this](credit_atom, size_t index, bool crashed) { on_credit(index, crashed); },
    [this](timer_atom, uint64_t generation) {
      if (generation != timer_generation_)
        return;
      timer_at_ = 0;
      expire_and_cancel(now());
      dispatch();
      maybe_finish_drain();
    },
    [this](cancel_atom) {
      expire_and_cancel(now());
      // A cancelled sequence may have freed a slot for one in the backlog.
      dispatch();
      maybe_finish_drain();
    },
    [this](deliver_atom, held_response& h) {
      if (order_)
        order_->arrive(std::move(h));
      else
        h.job->deliver(std::move(*h.response));
    },
    [this](stop_atom) -> caf::result<status> { return begin_drain(); },
    // The server takes no more requests: a drain is coming.
    [this](quiesce_atom) {
      queue_->draining();
      dispatch();
    },
    // Answers whether model code was still running (or loading): the
    // repository marks such a version as stuck.
    [this](abort_atom) {
      // Parked instances come back first: only a lease that runs is stuck.
      recall();
      bool stuck = phase_.loading() || pool_.lent() > 0 || pool_.any_running();
      abort_all();
      return stuck;
    },
    // A job the drain waits for completed (scheduler_drain_waker).
    [this](drain_atom) { maybe_finish_drain(); },
    // The model's finalizer returned (finalizing_model).
    [this](stopped_atom) {
      loader_.finalized();
      maybe_finish_drain();
    },
  };
}

void model_scheduler::on_exit() {
  retire_lane();
  // Answer what is still queued with the reason, directly: the ordering
  // router would send the answers to this actor, which takes no more mail.
  fail_queued(runtime::unavailable("model '" + spec_.context.name + "' version "
                                   + std::to_string(spec_.context.version) + " is unavailable"),
              failure_kind::other, true);
  if (order_)
    order_->release();
  if (load_rp_.pending())
    load_rp_.deliver(runtime::unavailable("model scheduler stopped while loading"));
  for (auto& rp : drain_rps_)
    if (rp.pending())
      rp.deliver(status::ok());
  drain_rps_.clear();
  for (auto& slot : pool_)
    if (slot.handle)
      send_exit(slot.handle, caf::exit_reason::user_shutdown);
  pool_.clear();
  release_model();
  listener_.reset();
}

uint64_t model_scheduler::now() const {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 clock().now().time_since_epoch())
                                 .count());
}

// -- request path ---------------------------------------------------------------

void model_scheduler::admit(runtime::job_ptr job) {
  if (!phase_.serving()) {
    job->fail(runtime::unavailable("'" + spec_.context.name + "' version "
                                   + std::to_string(spec_.context.version)
                                   + " is not at ready state"),
              failure_kind::other);
    return;
  }
  job->set_model_observer(spec_.stats);
  if (order_)
    order_->admit(*job);
  // Cancelled on its way here: it must not reach an instance that is idle
  // now, before the cancellation's own message does.
  if (job->is_cancelled()) {
    job->fail(runtime::cancelled("request cancelled"), failure_kind::cancelled);
    return;
  }
  // A hit skips the queue, as in Triton.
  const auto& ctx = spec_.context;
  if (spec_.cache && answer_from_cache(spec_.cache, *spec_.stats, ctx.name, ctx.version, job))
    return;
  auto st = queue_->enqueue(job, now());
  if (!st) {
    job->fail(std::move(st), failure_kind::rejected);
    return;
  }
  spec_.stats->on_enqueue();
  job->set_cancel_listener(listener_);
  dispatch();
}

void model_scheduler::dispatch() {
  // Jobs that wait in the lane come here too once work queues up, even when
  // no instance is lent (all that were crashed): they must not wait behind
  // the queue for as long as it is not empty.
  if (!queue_->empty() && (pool_.lent() > 0 || (spec_.lane && spec_.lane->has_waiting())))
    recall();
  // The most recently idle instance first. A queue that batches per
  // instance (the sequence batcher's direct strategy) may have work for one
  // idle instance and none for another.
  for (size_t k = pool_.idle().size(); k-- > 0 && !queue_->empty();) {
    auto index = pool_.idle()[k];
    auto jobs = take_batch(index);
    if (jobs.empty()) {
      if (queue_->any_instance())
        break;
      continue;
    }
    pool_.take_idle_at(k);
    run_batch(index, std::move(jobs));
  }
  if (prefetch_)
    prefetch();
  if (auto deadline = queue_->next_deadline(); deadline != 0)
    arm_timer(deadline);
  lend_idle();
}

runtime::backends::batch model_scheduler::take_batch(size_t index, bool counted_out) {
  auto d = queue_->next(now(), index);
  for (auto& job : d.timed_out) {
    spec_.stats->on_dequeue(1);
    job->fail(queue_->timeout_error(), failure_kind::rejected);
  }
  if (d.wake_at_ns != 0)
    arm_timer(d.wake_at_ns);
  if (counted_out && d.jobs.size() > d.padding)
    spec_.stats->on_dequeue(d.jobs.size() - d.padding);
  return std::move(d.jobs);
}

void model_scheduler::run_batch(size_t index, runtime::backends::batch jobs) {
  auto& slot = pool_[index];
  slot.running = std::make_shared<runtime::backends::batch>(std::move(jobs));
  // The instance answers with done_atom (its credit); if it dies instead, its
  // down message restarts it.
  send(slot.handle, execute_atom_v, slot.running);
}

void model_scheduler::prefetch() {
  for (auto& slot : pool_) {
    if (queue_->empty())
      return;
    if (!slot.handle || !slot.ready || !slot.running || slot.next)
      continue;
    auto jobs = take_batch(pool_.index_of(slot), false);
    if (jobs.empty())
      return;
    slot.next = std::make_shared<runtime::backends::batch>(std::move(jobs));
    slot.next_taken = std::make_shared<std::atomic<bool>>(false);
    send(slot.handle, execute_atom_v, slot.next, slot.next_taken);
  }
}

bool model_scheduler::take_back(instance_slot& slot) {
  if (!slot.next_taken || slot.next_taken->exchange(true))
    return false;
  spec_.stats->on_dequeue(slot.next->size());
  return true;
}

void model_scheduler::requeue(runtime::backends::batch& jobs, const std::string& instance) {
  for (auto i = jobs.rbegin(); i != jobs.rend(); ++i) {
    auto& job = *i;
    if (job->completed())
      continue;
    // Without an instance to come, a drain would wait for it in vain.
    auto st = phase_.stopping() ? runtime::internal_error("model instance '" + instance + "' crashed")
                        : queue_->return_to_front(job, now());
    if (!st) {
      job->fail(std::move(st), failure_kind::backend);
      continue;
    }
    spec_.stats->on_enqueue();
  }
}

std::vector<const runtime::inference_job*>
model_scheduler::reschedule(const runtime::backends::batch& jobs) {
  std::vector<const runtime::inference_job*> queued;
  for (const auto& job : jobs) {
    if (!job->take_reschedule() || job->completed())
      continue;
    // Cancelled while it ran (its cancel found nothing queued), or given up
    // on at the exit timeout: it ends here rather than run again.
    if (job->is_cancelled()) {
      job->fail(runtime::cancelled("request cancelled"), failure_kind::cancelled);
      continue;
    }
    if (phase_.aborted()) {
      job->fail(runtime::unavailable("Exit timeout expired: request abandoned"),
                failure_kind::other);
      continue;
    }
    // Also while draining: the request is not finished, and the drain waits
    // for it as for anything queued.
    if (auto st = queue_->reschedule(job, now()); !st) {
      job->fail(std::move(st), failure_kind::backend);
      continue;
    }
    spec_.stats->on_enqueue();
    queued.push_back(job.get());
  }
  return queued;
}

void model_scheduler::on_done(size_t index, const caf::strong_actor_ptr& sender) {
  if (index >= pool_.size())
    return;
  auto& slot = pool_[index];
  if (!slot.handle || !sender || slot.handle.address() != sender->address())
    return;
  auto queued_again = reschedule(*slot.running);
  // Jobs the execution left to be answered later (a decoupled model's, or a
  // python model's that took its response sender) are waited for by a drain.
  for (auto& job : *slot.running)
    if ((decoupled_ || job->answered_later())
        && std::find(queued_again.begin(), queued_again.end(), job.get()) == queued_again.end())
      late_->expect(job);
  queue_->batch_done(index, now());
  // The batch handed on runs now.
  slot.running = std::exchange(slot.next, nullptr);
  slot.next_taken.reset();
  if (!slot.running)
    pool_.make_idle(index);
  dispatch();
  maybe_finish_drain();
}

void model_scheduler::expire_and_cancel(uint64_t t) {
  for (auto& job : queue_->take_cancelled()) {
    spec_.stats->on_dequeue(1);
    job->fail(runtime::cancelled("request cancelled"), failure_kind::cancelled);
  }
  // A job handed on waits on its instance's worker, which skips it once it
  // is answered; it counts as pending until the worker passes it.
  for (auto& slot : pool_)
    if (slot.next && !slot.next_taken->load())
      for (auto& job : *slot.next)
        if (job->is_cancelled() && !job->completed())
          job->fail(runtime::cancelled("request cancelled"), failure_kind::cancelled);
  for (auto& job : queue_->take_expired(t)) {
    spec_.stats->on_dequeue(1);
    job->fail(queue_->timeout_error(), failure_kind::rejected);
  }
}

void model_scheduler::arm_timer(uint64_t wake_at) {
  if (timer_at_ != 0 && timer_at_ <= wake_at)
    return;
  timer_at_ = wake_at;
  auto t = now();
  auto delay = std::chrono::nanoseconds{wake_at > t ? wake_at - t : 0};
  delayed_send(caf::actor_cast<scheduler_actor>(this), delay, timer_atom_v, ++timer_generation_);
}

// -- stopping -------------------------------------------------------------------

caf::result<status> model_scheduler::begin_drain() {
  // Everyone who asks is answered when the drain is complete.
  phase_.drain();
  recall();
  // Sequences that only wait for their next request free their slots, so
  // the backlog behind them runs rather than waits for their idle timeout.
  queue_->draining();
  dispatch();
  auto rp = make_response_promise();
  drain_rps_.push_back(rp);
  maybe_finish_drain();
  return rp;
}

void model_scheduler::abort_all() {
  // An instance whose model code still runs gives up on it (blocking_instance).
  for (auto& slot : pool_)
    if (slot.handle)
      send(slot.handle, abort_atom_v);
  if (phase_.loading()) {
    // Past the exit timeout while loading: the load is given up on.
    release_model();
    return fail_loading(runtime::unavailable("Exit timeout expired: model '"
                                             + spec_.context.name + "' did not finish loading"));
  }
  fail_queued(runtime::unavailable("Exit timeout expired: request abandoned"),
              failure_kind::other);
  for (auto& slot : pool_) {
    if (slot.running)
      for (auto& job : *slot.running)
        job->cancel();
    // A batch handed on is answered as a queued one (its instance skips it),
    // unless it runs already.
    if (slot.next && take_back(slot))
      for (auto& job : *slot.next)
        job->fail(runtime::unavailable("Exit timeout expired: request abandoned"),
                  failure_kind::other);
    else if (slot.next)
      for (auto& job : *slot.next)
        job->cancel();
  }
  late_->cancel_all();
  phase_.abort();
  recall();
  maybe_finish_drain();
}

void model_scheduler::maybe_finish_drain() {
  if (!phase_.stopping() || !queue_->empty() || phase_.loading() || pool_.lent() > 0)
    return;
  for (auto& slot : pool_)
    if (slot.running || (slot.handle && !slot.ready))
      return;
  // A job answered after its batch wakes this actor when it completes.
  if (!phase_.aborted() && late_->pending())
    return;
  if (pool_.alive() == 0) {
    if (finalizing_model())
      return;
    for (auto& rp : drain_rps_)
      if (rp.pending())
        rp.deliver(status::ok());
    drain_rps_.clear();
    quit();
    return;
  }
  for (auto& slot : pool_)
    if (slot.handle) {
      send_exit(slot.handle, caf::exit_reason::user_shutdown);
      slot.ready = false;
    }
}

void model_scheduler::on_instance_down(const caf::down_msg& msg) {
  size_t index = pool_.find(msg.source);
  if (index == pool_.size())
    return;
  auto& slot = pool_[index];
  pool_.ended(index);
  if (spec_.readiness)
    spec_.readiness->clear(index);
  if (slot.running) {
    for (auto& job : *slot.running)
      if (!job->completed())
        job->fail(runtime::internal_error("model instance '" + slot.context.name + "' crashed"),
                  failure_kind::backend);
    slot.running.reset();
    queue_->batch_done(index, now());
  }
  // Sequences bound to the instance (the direct sequence batcher's) end with it.
  for (auto& job : queue_->instance_down(index)) {
    spec_.stats->on_dequeue(1);
    job->fail(runtime::internal_error("model instance '" + slot.context.name + "' crashed"),
              failure_kind::backend);
  }
  if (auto deadline = queue_->next_deadline(); deadline != 0)
    arm_timer(deadline);
  // A batch handed on behind the one that crashed never ran (blocking_instance).
  if (slot.next) {
    take_back(slot);
    auto next = std::exchange(slot.next, nullptr);
    slot.next_taken.reset();
    requeue(*next, slot.context.name);
  }
  if (slot.lent) {
    bool leased = !spec_.lane->reclaim(index);
    if (leased && !(phase_.aborted() && slot.worker)) {
      // A submitting thread runs the instance right now; its replacement
      // starts when the lease ends (on_credit).
      slot.replace_on_return = true;
      slot.down_reason = msg.reason;
      return;
    }
    pool_.returned(index);
    if (leased) {
      // Past the exit timeout, an instance that gave up on its worker gave
      // up on the request a lessee posted there too (blocking_instance):
      // the lease is not waited for and its late release is ignored
      // (on_credit). The lessee may still read the binding, which stays
      // until the lane goes; nothing is replaced after an abort.
      slot.instance.reset();
      slot.worker.reset();
      maybe_finish_drain();
      return;
    }
  }
  replace_instance(index, msg.reason);
}

void model_scheduler::replace_instance(size_t index, const caf::error& reason) {
  auto& slot = pool_[index];
  slot.instance.reset();
  slot.worker.reset();
  if (spec_.lane)
    spec_.lane->unbind(index);
  bool expected = phase_.stopping() || reason == caf::exit_reason::user_shutdown;
  if (expected) {
    maybe_finish_drain();
    return;
  }
  if (slot.restarts++ < spec_.restart_budget) {
    CONCH_LOG_WARN << "model instance '" << slot.context.name << "' stopped unexpectedly ("
                   << to_string(reason) << "), restarting it";
    spawn_instance(index);
    return;
  }
  CONCH_LOG_ERROR << "model instance '" << slot.context.name << "' stopped unexpectedly ("
                  << to_string(reason) << ") and has no restarts left";
  if (pool_.alive() == 0 && !phase_.loading()) {
    fail_queued(runtime::unavailable("model '" + spec_.context.name
                                     + "' is unavailable: its instances failed repeatedly"),
                failure_kind::other, true);
    quit(caf::make_error(caf::sec::runtime_error, "instances failed repeatedly"));
  }
}

void model_scheduler::fail_queued(const status& st, failure_kind kind, bool bypass_router) {
  for (auto& job : queue_->take_all()) {
    spec_.stats->on_dequeue(1);
    // While this scheduler lives, failures still pass through the ordering
    // router so that every position in the order is filled; when it is about
    // to end, nobody would deliver them, so they go straight to the client.
    if (bypass_router)
      job->clear_router();
    job->fail(st, kind);
  }
}

} // namespace conch::actors
