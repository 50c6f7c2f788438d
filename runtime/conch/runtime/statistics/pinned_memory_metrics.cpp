#include "conch/runtime/statistics/pinned_memory_metrics.hpp"

#include "conch/runtime/device_memory.hpp"

namespace conch::runtime::statistics {

pinned_memory_gauges::pinned_memory_gauges(prometheus::Registry& registry)
  : total_(prometheus::BuildGauge()
             .Name("nv_pinned_memory_pool_total_bytes")
             .Help("Pinned memory pool total memory size, in bytes")
             .Register(registry)
             .Add({})),
    used_(prometheus::BuildGauge()
            .Name("nv_pinned_memory_pool_used_bytes")
            .Help("Pinned memory pool used memory size, in bytes")
            .Register(registry)
            .Add({})) {
  sample();
}

void pinned_memory_gauges::sample() {
  pool_usage pool;
  if (auto provider = get_device_memory())
    pool = provider->pinned_pool();
  total_.Set(static_cast<double>(pool.total_bytes));
  used_.Set(static_cast<double>(pool.used_bytes));
}

} // namespace conch::runtime::statistics
