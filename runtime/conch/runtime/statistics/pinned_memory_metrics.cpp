#include "conch/runtime/statistics/pinned_memory_metrics.hpp"

#include <prometheus/gauge.h>

namespace conch::runtime::statistics {

void add_pinned_memory_gauges(prometheus::Registry& registry) {
  prometheus::BuildGauge()
    .Name("nv_pinned_memory_pool_total_bytes")
    .Help("Pinned memory pool total memory size, in bytes")
    .Register(registry)
    .Add({});
  prometheus::BuildGauge()
    .Name("nv_pinned_memory_pool_used_bytes")
    .Help("Pinned memory pool used memory size, in bytes")
    .Register(registry)
    .Add({});
}

} // namespace conch::runtime::statistics
