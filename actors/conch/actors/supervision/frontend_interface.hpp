#pragma once

#include <caf/typed_actor.hpp>

#include "conch/actors/messages.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {

/// What a frontend's supervisor (frontend_supervisor) takes.
using frontend_actor = caf::typed_actor<
  // Open the transport.
  caf::replies_to<start_atom>::with<runtime::status>,
  // Drain and close the transport (step 2 of the stop protocol), then end.
  caf::replies_to<stop_atom>::with<runtime::status>,
  // The transport reports that it drained.
  caf::reacts_to<stopped_atom>,
  // Force the transport closed (the exit timeout passed).
  caf::reacts_to<abort_atom>,
  // The transport failed while serving (from its failure handler).
  caf::reacts_to<crash_atom, runtime::status>,
  // Make the transport fail (fault injection, in tests).
  caf::reacts_to<crash_atom>,
  // The failed transport closed: replace it.
  caf::reacts_to<restart_atom>>;

} // namespace conch::actors
