#include "conch/actors/instances/blocking_instance.hpp"

#include <cxxabi.h>

#include <exception>

#include "conch/actors/instances/instance_execution.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

using runtime::status;

struct blocking_instance::backend_box {
  backend_model_ptr model;
  instance_ptr instance;
  /// A batch threw: the batches queued behind it are not run.
  bool broken = false;
};

namespace {

std::string describe(const runtime::statistics::model_statistics* stats,
                     const runtime::backends::instance_context& context) {
  std::string out;
  if (stats != nullptr)
    out = "model '" + stats->name() + "' version " + std::to_string(stats->version()) + " ";
  return out + "instance '" + context.name + "'";
}

// Runs on the worker.
status create(backend_model_ptr& model, instance_ptr& instance,
              const runtime::backends::instance_context& context) {
  try {
    auto created = model->create_instance(context);
    if (!created)
      return created.error();
    instance = std::move(*created);
    return status::ok();
  } catch (abi::__forced_unwind&) {
    throw; // the interpreter ends this thread at exit
  } catch (const std::exception& e) {
    return runtime::internal_error("instance '" + context.name + "' failed to initialize: "
                                   + e.what());
  } catch (...) {
    return runtime::internal_error("instance '" + context.name + "' failed to initialize");
  }
}

} // namespace

blocking_instance::blocking_instance(caf::actor_config& cfg, backend_model_ptr model,
                                     runtime::backends::instance_context context,
                                     std::shared_ptr<runtime::statistics::model_statistics> stats,
                                     bool decoupled, int32_t max_batch_size)
  : blocking_instance_actor::base(cfg),
    box_(std::make_shared<backend_box>(backend_box{std::move(model), nullptr, false})),
    context_(std::move(context)),
    stats_(std::move(stats)),
    worker_(std::make_shared<services::worker_thread>(describe(stats_.get(), context_))),
    decoupled_(decoupled),
    max_batch_size_(max_batch_size) {}

blocking_instance::behavior_type blocking_instance::make_behavior() {
  set_exit_handler([this](caf::exit_msg& msg) { on_exit_message(std::move(msg.reason)); });
  return {
    [this](init_atom) { return init(); },
    [this](init_atom, status& st) {
      initializing_ = false;
      if (st && box_ && box_->instance)
        lent_ = std::make_shared<worker_instance>(box_->instance, worker_, context_);
      if (init_rp_.pending())
        init_rp_.deliver(std::move(st), instance_ptr{lent_});
      if (exiting_)
        finalize();
    },
    [this](execute_atom, batch_ptr& jobs) {
      scheduler_ = caf::actor_cast<scheduler_actor>(current_sender());
      execute(std::move(jobs), nullptr);
    },
    [this](execute_atom, batch_ptr& jobs, handed_flag& taken) {
      scheduler_ = caf::actor_cast<scheduler_actor>(current_sender());
      execute(std::move(jobs), std::move(taken));
    },
    [this](done_atom, bool healthy) { on_executed(healthy); },
    [this](stopped_atom) { quit(exit_reason_); },
    [this](abort_atom) {
      // A lessee that has not posted yet takes the actor path, which the
      // aborted scheduler answers.
      if (lent_)
        lent_->close();
      if (!running_.empty() || initializing_ || (lent_ && lent_->busy())) {
        abandon();
      } else if (finalizing_ && worker_->busy()) {
        // Finalizing the backend has not returned: given up on as well.
        worker_->abandon();
        if (!exit_reason_)
          exit_reason_ = caf::exit_reason::user_shutdown;
        quit(exit_reason_);
      }
    },
  };
}

void blocking_instance::on_exit() {
  // Killed, or ended any other way: the backend is released on the worker,
  // and a worker that still runs model code is given up on.
  if (lent_)
    lent_->close();
  if (!running_.empty() || initializing_ || (lent_ && lent_->busy()))
    give_up();
  lent_.reset();
  if (box_) {
    worker_->post([box = std::move(box_)]() mutable { box.reset(); });
    worker_->close();
  }
  worker_.reset();
  stats_.reset();
}

caf::result<status, instance_ptr> blocking_instance::init() {
  if (initializing_ || !box_ || box_->instance)
    return {runtime::already_exists("instance '" + context_.name + "' is already initialized"),
            instance_ptr{}};
  initializing_ = true;
  init_rp_ = make_response_promise<status, instance_ptr>();
  caf::actor_addr me = address();
  worker_->post([me, box = box_, context = context_] {
    auto st = create(box->model, box->instance, context);
    if (auto self = caf::actor_cast<blocking_instance_actor>(me))
      caf::anon_send(self, init_atom_v, std::move(st));
  });
  return init_rp_;
}

void blocking_instance::execute(batch_ptr jobs, handed_flag taken) {
  // Handed on after a batch threw: the scheduler takes it back once this
  // actor is down.
  if (exiting_ || !box_)
    return;
  running_.push_back({jobs, taken});
  caf::actor_addr me = address();
  worker_->post([me, box = box_, context = context_, stats = stats_, decoupled = decoupled_,
                 max_batch = max_batch_size_, taken, jobs = std::move(jobs)]() mutable {
    bool healthy = true;
    if (taken) {
      if (taken->exchange(true))
        jobs.reset(); // given up on (give_up) before it came up
      else
        stats->on_dequeue(jobs->size());
    }
    if (!jobs || box->broken) {
      // Given up on, or handed on behind a batch that threw (the scheduler
      // requeues it): not run.
    } else if (box->instance && taken) {
      healthy = execute_uncancelled({*box->instance, context, *stats, decoupled, max_batch}, *jobs);
    } else if (box->instance) {
      healthy = execute_batch({*box->instance, context, *stats, decoupled, max_batch}, *jobs);
    } else {
      healthy = false;
      for (auto& job : *jobs)
        job->fail(runtime::internal_error("instance '" + context.name + "' is not initialized"));
    }
    if (!healthy)
      box->broken = true;
    jobs.reset();
    if (auto self = caf::actor_cast<blocking_instance_actor>(me))
      caf::anon_send(self, done_atom_v, healthy);
  });
}

void blocking_instance::on_executed(bool healthy) {
  if (!running_.empty())
    running_.pop_front();
  if (!healthy) {
    // The backend threw: a fresh instance replaces this one.
    exit_reason_ = caf::make_error(caf::sec::runtime_error);
    exiting_ = true;
    finalize();
    return;
  }
  if (exiting_) {
    if (running_.empty())
      finalize();
    return;
  }
  // One credit back: the scheduler may hand this instance its next batch.
  send(scheduler_, done_atom_v, context_.index);
}

void blocking_instance::on_exit_message(caf::error reason) {
  if (exiting_)
    return;
  exiting_ = true;
  exit_reason_ = std::move(reason);
  // The batches and an initialization that run finish first (or are
  // abandoned).
  if (running_.empty() && !initializing_)
    finalize();
}

void blocking_instance::finalize() {
  if (finalizing_)
    return;
  finalizing_ = true;
  // The backend finalizes on the thread that ran it; the actor ends once the
  // worker has nothing left.
  worker_->post([box = std::move(box_)]() mutable { box.reset(); });
  caf::actor_addr me = address();
  worker_->close([me] {
    if (auto self = caf::actor_cast<blocking_instance_actor>(me))
      caf::anon_send(self, stopped_atom_v);
  });
}

void blocking_instance::abandon() {
  give_up();
  if (!exit_reason_)
    exit_reason_ = caf::exit_reason::user_shutdown;
  quit(exit_reason_);
}

void blocking_instance::give_up() {
  auto st = runtime::unavailable("Exit timeout expired: model instance '" + context_.name
                                 + "' did not return, request abandoned");
  if (!running_.empty()) {
    for (auto& batch : running_) {
      // One the worker has not taken up leaves the queue count now.
      if (batch.taken && !batch.taken->exchange(true) && stats_)
        stats_->on_dequeue(batch.jobs->size());
      for (auto& job : *batch.jobs)
        job->abandon(st);
    }
    // The instance is set before any batch runs, so reading it here races
    // with nothing; the backend may be able to make its code return.
    if (box_ && box_->instance)
      box_->instance->interrupt();
  }
  running_.clear();
  // A request a lessee posted to the worker is given up on the same way.
  if (auto job = lent_ ? lent_->take_posted() : nullptr) {
    job->abandon(st);
    if (box_ && box_->instance)
      box_->instance->interrupt();
  }
  initializing_ = false;
  if (init_rp_.pending())
    init_rp_.deliver(st, instance_ptr{});
  // Queued behind the stuck task, the release is dropped on the worker.
  if (box_)
    worker_->post([box = std::move(box_)]() mutable { box.reset(); });
  worker_->abandon();
}

} // namespace conch::actors
