// Loading a model version and finalizing it: its backend on a loader
// thread, its instances, and a blocking backend's model on a finalizer.

#include <cxxabi.h>

#include <string>

#include "conch/actors/instances/blocking_instance.hpp"
#include "conch/actors/instances/instance_actor.hpp"
#include "conch/actors/scheduling/model_scheduler.hpp"
#include "conch/actors/scheduling/scheduler_hooks.hpp"
#include "conch/runtime/backends/common/warmup.hpp"

namespace conch::actors {

using runtime::status;

// -- loading ------------------------------------------------------------------

caf::result<status> model_scheduler::start_loading() {
  if (!queue_error_)
    return queue_error_;
  if (!phase_.begin_load())
    return runtime::already_exists("model scheduler already loaded");
  load_rp_ = make_response_promise();
  caf::actor_addr me = address();
  auto load = [me, factory = spec_.factory, context = spec_.context] {
    backend_model_ptr model;
    status st;
    try {
      auto made = factory(context);
      if (made)
        model = std::move(*made);
      else
        st = made.error();
      // Warm-up samples read their files here, off the actor system's
      // threads; each instance runs them as it is created.
      if (model && context.config->model_warmup_size() > 0) {
        auto samples =
          runtime::backends::common::make_warmup_samples(*context.config, context.model_path);
        if (samples)
          model = runtime::backends::common::with_warmup(std::move(model), std::move(*samples));
        else
          st = samples.error();
        if (!st)
          model.reset(); // released here, on the thread that made it
      }
    } catch (abi::__forced_unwind&) {
      throw; // the interpreter ends this thread at exit
    } catch (const std::exception& e) {
      st = runtime::internal_error(std::string{"backend failed to load the model: "} + e.what());
    } catch (...) {
      st = runtime::internal_error("backend failed to load the model");
    }
    if (auto self = caf::actor_cast<scheduler_actor>(me))
      caf::anon_send(self, init_atom_v, std::move(model), std::move(st));
  };
  if (spec_.allow_detached) {
    // Loading may run model code (a Python initialize) that never returns:
    // it runs on a thread the actor system does not wait for.
    loader_.load_on_thread(std::move(load));
  } else {
    system().spawn([load](caf::event_based_actor*) { load(); });
  }
  return load_rp_;
}

void model_scheduler::on_model_loaded(backend_model_ptr model, status st) {
  loader_.loaded();
  if (!st)
    return fail_loading(st);
  model_ = std::move(model);
  auto contexts = instance_contexts(*config_);
  pool_.resize(contexts.size());
  // A second batch waits on the instance's worker only where no other
  // instance could have run it sooner and no dynamic batcher would have
  // grown it meanwhile.
  prefetch_ = spec_.allow_detached && model_->blocking() && pool_.size() == 1
              && !queue_->grows_batches();
  for (size_t i = 0; i < contexts.size(); ++i) {
    pool_[i].context = contexts[i];
    spawn_instance(i);
  }
  if (pool_.empty())
    fail_loading(runtime::invalid_argument("model '" + spec_.context.name + "' has no instances"));
}

void model_scheduler::spawn_instance(size_t index) {
  auto& slot = pool_[index];
  bool decoupled = decoupled_;
  auto max_batch = config_->max_batch_size();
  model_instance_actor handle;
  if (spec_.allow_detached && model_->blocking())
    handle = spawn<blocking_instance, caf::monitored>(model_, slot.context, spec_.stats,
                                                      decoupled, max_batch);
  else
    handle = spawn<instance_actor, caf::monitored>(model_, slot.context, spec_.stats, decoupled,
                                                   max_batch);
  pool_.started(index, handle);
  ++pending_inits_;
  request(handle, caf::infinite, init_atom_v)
    .then(
      [this, index, handle](status& st, instance_ptr& instance) {
        on_instance_init(index, handle, std::move(st), std::move(instance));
      },
      [this, index, handle](caf::error&) {
        on_instance_init(index, handle,
                         runtime::internal_error("model instance stopped while initializing"),
                         nullptr);
      });
}

void model_scheduler::on_instance_init(size_t index, model_instance_actor handle, status st,
                                       instance_ptr instance) {
  --pending_inits_;
  auto& slot = pool_[index];
  if (slot.handle != handle)
    return;
  if (!st) {
    if (phase_.loading())
      return fail_loading(st.with_prefix("instance '" + slot.context.name + "': "));
    // A restarted instance that cannot come back counts as one more crash.
    send_exit(slot.handle, caf::make_error(caf::sec::runtime_error));
    return;
  }
  slot.ready = true;
  slot.instance = std::move(instance);
  slot.worker = std::dynamic_pointer_cast<worker_instance>(slot.instance);
  if (spec_.readiness && slot.instance)
    spec_.readiness->set(index, slot.instance->readiness());
  pool_.make_idle(index);
  queue_->instance_up(index);
  bool loaded = phase_.loading() && pending_inits_ == 0;
  if (loaded)
    phase_.load_succeeded();
  // Idle instances are lent before the load is answered, so a request sent
  // once the model is READY finds them.
  dispatch();
  if (loaded)
    load_rp_.deliver(status::ok());
  maybe_finish_drain();
}

void model_scheduler::fail_loading(status st) {
  phase_.load_failed();
  if (load_rp_.pending())
    load_rp_.deliver(std::move(st));
  for (auto& slot : pool_)
    if (slot.handle)
      send_exit(slot.handle, caf::exit_reason::user_shutdown);
  quit();
}

// -- finalizing ----------------------------------------------------------------

void model_scheduler::release_model() {
  loader_.release(model_);
}

bool model_scheduler::finalizing_model() {
  // A blocking backend's model is finalized off the actor system's threads,
  // and the drain answers once that returned (stopped_atom).
  caf::actor_addr me = address();
  return loader_.finalize(model_, [me] {
    if (auto self = caf::actor_cast<scheduler_actor>(me))
      caf::anon_send(self, stopped_atom_v);
  });
}

} // namespace conch::actors
