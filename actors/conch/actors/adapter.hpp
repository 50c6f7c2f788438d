#pragma once

#include <caf/event_based_actor.hpp>

#include "conch/actors/messages.hpp"

namespace conch::actors {

/// A server adapter: resolves a job's model version from its own snapshot of
/// the model table, validates the request against that version's
/// configuration, and forwards it to the version's scheduler. Invalid
/// requests are answered here. Snapshots arrive with `table_atom` and are
/// acknowledged, so a load returns only once every adapter sees the model.
caf::behavior adapter(caf::event_based_actor* self);

} // namespace conch::actors
