#pragma once

#include <caf/typed_actor.hpp>

#include "conch/actors/messages.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {

/// What a model instance's actor (instance_actor, blocking_instance) takes
/// from its scheduler, which it answers `done_atom` after each batch.
using model_instance_actor = caf::typed_actor<
  // Create the backend instance; answers the status and the instance the
  // scheduler may lend to its direct lane (null: none to lend).
  caf::replies_to<init_atom>::with<runtime::status, instance_ptr>,
  // Run a batch.
  caf::reacts_to<execute_atom, batch_ptr>,
  // Run a batch handed on behind the running one (handed_flag: whoever
  // takes it up first, this instance or the scheduler giving up on it).
  caf::reacts_to<execute_atom, batch_ptr, handed_flag>,
  // The exit timeout passed: give up on model code that still runs.
  caf::reacts_to<abort_atom>>;

} // namespace conch::actors
