#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/typed_actor.hpp>

#include "conch/actors/messages.hpp"
#include "conch/actors/repository/repository_messages.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {

/// What the model repository (model_repository) takes.
using repository_actor = caf::typed_actor<
  // Load what the control mode starts with; answers the models that failed.
  caf::replies_to<init_atom>::with<std::vector<std::string>>,
  // Load (or reload) a model by name (EXPLICIT mode).
  caf::replies_to<load_atom, std::string, load_parameters_ptr>::with<runtime::status>,
  // Unload a model, with its dependents or not (EXPLICIT mode).
  caf::replies_to<unload_atom, std::string, bool>::with<runtime::status>,
  // Add or remove a repository to read from (EXPLICIT mode).
  caf::replies_to<register_atom, repository_root_ptr>::with<runtime::status>,
  caf::replies_to<unregister_atom, std::string>::with<runtime::status>,
  // Scan the roots now and apply what changed (POLL mode).
  caf::replies_to<poll_atom>::with<runtime::status>,
  // The repository index: every model found, or only the ready ones.
  caf::replies_to<index_atom, bool>::with<index_ptr>,
  // Drain and end every scheduler (step 4 of the stop protocol).
  caf::replies_to<stop_atom>::with<runtime::status>,
  // The server stopped taking requests: a stop follows.
  caf::reacts_to<quiesce_atom>,
  // The exit timeout passed: give up on what still runs.
  caf::reacts_to<abort_atom>,
  // The repository's own poll timer.
  caf::reacts_to<timer_atom>,
  // Work done off the actor's threads is back: run its continuation.
  caf::reacts_to<scan_atom, uint64_t>>;

} // namespace conch::actors
