#pragma once

#include <string>
#include <vector>

#include <caf/response_promise.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "conch/actors/frontend_health.hpp"
#include "conch/actors/supervision/frontend_interface.hpp"
#include "conch/actors/frontend_transport.hpp"
#include "conch/actors/messages.hpp"

namespace conch::actors {

/// Supervises one frontend and owns its transport: `start_atom` opens it,
/// `stop_atom` runs step 2 of the stop protocol and answers (then quits) once
/// the transport reports drained — every `stop_atom`, however many race —
/// and `abort_atom` forces it closed. Spawned detached, because stopping a
/// transport joins its threads. The transport is released when the actor
/// ends, whichever way it ends.
///
/// A transport that fails while serving is closed and replaced by a fresh
/// one on the same port (frontend_restart), logged and counted, up to the
/// restart budget; past it the frontend is reported failed in its
/// frontend_health and serves no more, while the server goes on.
/// `crash_atom` injects such a failure (tests). Its interface is
/// frontend_actor.
class frontend_supervisor : public frontend_actor::base {
 public:
  frontend_supervisor(caf::actor_config& cfg, frontend_transport_ptr transport,
                      frontend_restart_ptr restart);

  behavior_type make_behavior() override;
  void on_exit() override;

 private:
  runtime::status start();
  caf::result<runtime::status> stop();
  void answer_stops();
  void watch();
  void on_failure(runtime::status why);
  void replace();
  void give_up(runtime::status why);

  frontend_transport_ptr transport_;
  frontend_restart_ptr restart_;
  std::string name_;
  std::vector<caf::response_promise> stop_rps_;
  runtime::status failure_;
  size_t restarts_ = 0;
  bool started_ = false;
  bool stopping_ = false;
  bool replacing_ = false;
};

} // namespace conch::actors
