#include "conch/actors/frontend_supervisor.hpp"

namespace conch::actors {

using runtime::status;

frontend_supervisor::frontend_supervisor(caf::actor_config& cfg, frontend_transport_ptr transport)
  : caf::event_based_actor(cfg), transport_(std::move(transport)) {}

caf::behavior frontend_supervisor::make_behavior() {
  return {
    [this](start_atom) -> status {
      if (started_)
        return runtime::already_exists(transport_->name() + " frontend is already running");
      auto st = transport_->start();
      started_ = st.is_ok();
      return st;
    },
    [this](stop_atom) { return stop(); },
    [this](stopped_atom) {
      answer_stops();
      quit();
    },
    [this](abort_atom) {
      if (started_)
        transport_->abort();
    },
  };
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
  // Only the address: the transport (and the jobs that observe it) must not
  // keep this actor alive.
  caf::actor_addr me = address();
  transport_->begin_stop([me] {
    if (auto self = caf::actor_cast<caf::actor>(me))
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

void frontend_supervisor::on_exit() {
  // Killed without a stop (exit timeout, crash): close the transport anyway.
  if (started_ && !stopping_)
    transport_->abort();
  answer_stops();
  transport_.reset();
}

} // namespace conch::actors
