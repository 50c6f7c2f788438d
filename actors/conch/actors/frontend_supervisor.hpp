#pragma once

#include <vector>

#include <caf/event_based_actor.hpp>
#include <caf/response_promise.hpp>

#include "conch/actors/frontend_transport.hpp"
#include "conch/actors/messages.hpp"

namespace conch::actors {

/// Supervises one frontend and owns its transport: `start_atom` opens it,
/// `stop_atom` runs step 2 of the stop protocol and answers (then quits) once
/// the transport reports drained — every `stop_atom`, however many race —
/// and `abort_atom` forces it closed. Spawned
/// detached, because stopping a transport joins its threads. The transport
/// is released when the actor ends, whichever way it ends.
class frontend_supervisor : public caf::event_based_actor {
 public:
  frontend_supervisor(caf::actor_config& cfg, frontend_transport_ptr transport);

  caf::behavior make_behavior() override;
  void on_exit() override;

 private:
  caf::result<runtime::status> stop();
  void answer_stops();

  frontend_transport_ptr transport_;
  std::vector<caf::response_promise> stop_rps_;
  bool started_ = false;
  bool stopping_ = false;
};

} // namespace conch::actors
