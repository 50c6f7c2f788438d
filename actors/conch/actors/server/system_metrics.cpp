#include "conch/actors/server/system_metrics.hpp"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "conch/actors/server/gauge_sampler.hpp"
#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/statistics/cpu_metrics.hpp"
#include "conch/runtime/statistics/gpu_metrics.hpp"
#include "conch/runtime/statistics/nvml_library.hpp"
#include "conch/runtime/statistics/pinned_memory_metrics.hpp"

namespace conch::actors {

namespace stats = runtime::statistics;

gauge_sampler_actor start_system_metrics(caf::actor_system& sys, const server_options& options,
                                         prometheus::Registry& registry) {
  if (!options.metrics)
    return {};
  std::vector<std::function<void()>> samplers;
  // The pools are in place before the gauges (install_memory_pools), and
  // stay as they are: without one there is nothing to follow.
  auto pinned = std::make_shared<stats::pinned_memory_gauges>(registry);
  if (auto provider = runtime::get_device_memory(); provider && provider->pinned_pool().total_bytes)
    samplers.emplace_back([pinned] { pinned->sample(); });
  if (options.cpu_metrics) {
    auto cpu = std::make_shared<stats::cpu_gauges>(registry);
    (void) cpu->sample();
    samplers.emplace_back([cpu] { (void) cpu->sample(); });
  }
  if (options.gpu_metrics) {
    std::shared_ptr<stats::gpu_gauges> gpu = stats::gpu_gauges::make(
      registry, stats::open_nvml_library(), std::getenv("CUDA_VISIBLE_DEVICES"));
    if (gpu)
      samplers.emplace_back([gpu] { gpu->sample(); });
  }
  if (samplers.empty())
    return {};
  return spawn_gauge_sampler(sys, std::move(samplers),
                             std::chrono::milliseconds{options.metrics_interval_ms});
}

} // namespace conch::actors
