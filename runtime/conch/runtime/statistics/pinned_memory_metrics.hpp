#pragma once

#include <prometheus/registry.h>

namespace conch::runtime::statistics {

/// Registers nv_pinned_memory_pool_total_bytes and
/// nv_pinned_memory_pool_used_bytes, each one unlabelled series at 0. Conch
/// keeps no pinned memory pool (pinned buffers come from the CUDA runtime as
/// requests need them), so the pool is truly empty; the gauges are there so
/// that dashboards and tools written against Triton's families find them.
void add_pinned_memory_gauges(prometheus::Registry& registry);

} // namespace conch::runtime::statistics
