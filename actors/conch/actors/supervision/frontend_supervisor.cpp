#include "conch/actors/supervision/frontend_supervisor.hpp"

#include <caf/send.hpp>

#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/statistics/frontend_restarts.hpp"

namespace conch::actors {

using runtime::status;

frontend_supervisor::frontend_supervisor(caf::actor_config& cfg, frontend_transport_ptr transport,
                                         frontend_restart_ptr restart)
  : frontend_actor::base(cfg),
    transport_(std::move(transport)),
    restart_(std::move(restart)),
    name_(transport_->name()) {}

frontend_actor::behavior_type frontend_supervisor::make_behavior() {
  return {
    [this](start_atom) { return start(); },
    [this](stop_atom) { return stop(); },
    [this](stopped_atom) {
      answer_stops();
      quit();
    },
    [this](abort_atom) {
      if (started_)
        transport_->abort();
    },
    // From the transport's failure handler, on any thread.
    [this](crash_atom, status& why) { on_failure(std::move(why)); },
    // Fault injection (tests).
    [this](crash_atom) {
      if (started_ && !replacing_)
        transport_->inject_failure();
    },
    [this](restart_atom) { replace(); },
  };
}

status frontend_supervisor::start() {
  if (started_)
    return runtime::already_exists(name_ + " frontend is already running");
  watch();
  auto st = transport_->start();
  started_ = st.is_ok();
  return st;
}

void frontend_supervisor::watch() {
  // Only the address: the transport must not keep this actor alive.
  caf::actor_addr me = address();
  transport_->set_failure_handler([me](status why) {
    if (auto self = caf::actor_cast<frontend_actor>(me))
      caf::anon_send(self, crash_atom_v, std::move(why));
  });
}

caf::result<status> frontend_supervisor::stop() {
  // A second stop (the server's and the frontend's own, racing) waits for
  // the first and hears the same answer.
  auto rp = make_response_promise();
  stop_rps_.push_back(rp);
  if (stopping_)
    return rp;
  stopping_ = true;
  if (!started_) {
    answer_stops();
    quit();
    return rp;
  }
  caf::actor_addr me = address();
  transport_->begin_stop([me] {
    if (auto self = caf::actor_cast<frontend_actor>(me))
      caf::anon_send(self, stopped_atom_v);
  });
  return rp;
}

void frontend_supervisor::answer_stops() {
  for (auto& rp : stop_rps_)
    if (rp.pending())
      rp.deliver(status::ok());
  stop_rps_.clear();
}

void frontend_supervisor::on_failure(status why) {
  if (!started_ || stopping_ || replacing_)
    return;
  CONCH_LOG_ERROR << name_ << " frontend failed: " << why.message();
  failure_ = std::move(why);
  replacing_ = true;
  // What is left of the failed transport closes first, so that the fresh
  // one can bind the same port.
  transport_->abort();
  caf::actor_addr me = address();
  transport_->begin_stop([me] {
    if (auto self = caf::actor_cast<frontend_actor>(me))
      caf::anon_send(self, restart_atom_v);
  });
}

void frontend_supervisor::replace() {
  if (!replacing_ || stopping_)
    return;
  replacing_ = false;
  auto failed = std::move(transport_);
  size_t budget = restart_ ? restart_->budget : 0;
  if (!restart_ || !restart_->make || restarts_ >= budget) {
    failed.reset(); // joins the failed transport's threads
    return give_up(failure_);
  }
  ++restarts_;
  runtime::statistics::frontend_restarts::note(name_);
  if (restart_->health)
    restart_->health->note_restart();
  auto fresh = restart_->make(*failed);
  failed.reset(); // joins the failed transport's threads; its port is free
  if (!fresh)
    return give_up(fresh.error());
  transport_ = std::move(*fresh);
  watch();
  if (auto st = transport_->start(); !st) {
    transport_.reset();
    return give_up(st);
  }
  CONCH_LOG_WARN << "restarted the " << name_ << " frontend after it failed (restart "
                 << restarts_ << " of " << budget << ")";
}

void frontend_supervisor::give_up(status why) {
  started_ = false;
  auto reason = why.message().empty() ? std::string{"it failed"} : why.message();
  CONCH_LOG_ERROR << "the " << name_ << " frontend failed with its restart budget ("
                  << restarts_ << " of " << (restart_ ? restart_->budget : 0)
                  << ") spent; it is not restarted again (" << reason
                  << "), and the server keeps serving through its other frontends";
  if (restart_ && restart_->health)
    restart_->health->set_failed(runtime::unavailable(name_ + " server failed: " + reason));
}

void frontend_supervisor::on_exit() {
  // Killed without a stop (exit timeout, crash): close the transport anyway.
  if (started_ && !stopping_ && transport_)
    transport_->abort();
  answer_stops();
  transport_.reset();
}

} // namespace conch::actors
