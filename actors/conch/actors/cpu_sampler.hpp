#pragma once

#include <chrono>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "conch/runtime/statistics/cpu_metrics.hpp"

namespace conch::actors {

/// Spawns the actor that samples `gauges` every `interval` (the server's
/// metrics_interval). Detached: reading /proc never holds a scheduler thread.
/// It runs until sent an exit message.
caf::actor spawn_cpu_sampler(caf::actor_system& sys,
                             std::shared_ptr<runtime::statistics::cpu_gauges> gauges,
                             std::chrono::milliseconds interval);

} // namespace conch::actors
