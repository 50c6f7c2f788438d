#pragma once

#include <caf/actor_system.hpp>
#include <prometheus/registry.h>

#include "conch/actors/server/gauge_sampler.hpp"
#include "conch/actors/server_options.hpp"

namespace conch::actors {

/// Registers in `registry` the system gauges `options` asks for: with
/// `metrics`, the pinned memory pool gauges; with `cpu_metrics` too, the CPU
/// gauges; with `gpu_metrics` too, the GPU gauges of the GPUs NVML shows
/// (none where libnvidia-ml or a GPU is missing). Takes a first sample, then
/// spawns the actor that samples every metrics_interval_ms; returns it, or
/// a null handle when there is nothing to sample.
gauge_sampler_actor start_system_metrics(caf::actor_system& sys, const server_options& options,
                                         prometheus::Registry& registry);

} // namespace conch::actors
