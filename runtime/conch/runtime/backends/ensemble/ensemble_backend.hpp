#pragma once

#include "conch/runtime/backends/registry.hpp"

namespace conch::runtime::backends::ensemble {

/// The "ensemble" backend, which platform "ensemble" maps to: runs the
/// configuration's ensemble_scheduling steps as a data flow (ensemble_run)
/// through the server's model gateway. Loading checks the graph and the
/// composing models as they are loaded then. Its instances never block:
/// execute() starts each request's first steps and returns, and the
/// requests are answered from the threads of the composing models.
backend_entry make_ensemble_backend();

} // namespace conch::runtime::backends::ensemble
