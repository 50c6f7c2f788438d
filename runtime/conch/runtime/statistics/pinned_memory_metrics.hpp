#pragma once

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

namespace conch::runtime::statistics {

/// nv_pinned_memory_pool_total_bytes and nv_pinned_memory_pool_used_bytes,
/// one unlabelled series each: the pinned memory pool of the installed
/// device memory provider (runtime::device_memory::pinned_pool), 0 where
/// there is none (no GPU, or a pool size of 0). Sampled, like the CPU and
/// GPU gauges. Thread-safe.
class pinned_memory_gauges {
 public:
  explicit pinned_memory_gauges(prometheus::Registry& registry);

  /// Reads the pool's size and the bytes handed out from it.
  void sample();

 private:
  prometheus::Gauge& total_;
  prometheus::Gauge& used_;
};

} // namespace conch::runtime::statistics
