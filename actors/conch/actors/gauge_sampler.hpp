#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

namespace conch::actors {

/// Spawns the actor that calls every function of `samplers` each `interval`
/// (the server's metrics_interval): the CPU and GPU gauges. Detached:
/// reading /proc or NVML never holds a scheduler thread. It runs until sent
/// an exit message.
caf::actor spawn_gauge_sampler(caf::actor_system& sys, std::vector<std::function<void()>> samplers,
                               std::chrono::milliseconds interval);

} // namespace conch::actors
