#pragma once

#include <string>
#include <vector>

#include <caf/typed_actor.hpp>

#include "conch/actors/adapters/adapter_pool.hpp"
#include "conch/actors/frontend_health.hpp"
#include "conch/actors/supervision/frontend_interface.hpp"
#include "conch/actors/frontend_transport.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/repository/repository_interface.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {

/// What a server's root (server_supervisor) takes.
using supervisor_actor = caf::typed_actor<
  // Load the repository; answers the models that failed.
  caf::replies_to<init_atom>::with<std::vector<std::string>>,
  // Add a frontend and start it; answers how it started and its supervisor
  // (null when it did not).
  caf::replies_to<frontend_atom, frontend_transport_ptr>::with<runtime::status, frontend_actor>,
  // The same, with what replaces its transport should it fail.
  caf::replies_to<frontend_atom, frontend_transport_ptr,
                  frontend_restart_ptr>::with<runtime::status, frontend_actor>,
  // Run the stop protocol; every caller hears its outcome.
  caf::replies_to<stop_atom>::with<runtime::status>,
  // The exit timeout (and then the grace after abandoning) passed.
  caf::reacts_to<timer_atom>,
  // The server's core: its repository and its adapter pool.
  caf::replies_to<caf::get_atom>::with<repository_actor, adapter_pool_actor>>;

} // namespace conch::actors
