#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include "conch/runtime/statistics/nvml_source.hpp"

namespace conch::runtime::statistics {

/// The NVML indices of the GPUs CUDA would use under `cuda_visible_devices`
/// (the CUDA_VISIBLE_DEVICES value; null: every GPU, in NVML order). Entries
/// are NVML indices or UUID prefixes ("GPU-8f3a"); as in CUDA, the list ends
/// at the first entry that names no GPU, is ambiguous or repeats one, and
/// "MIG-" entries end it too (GPU metrics are per physical GPU). NVML
/// numbers GPUs in PCI bus order, as CUDA does under
/// CUDA_DEVICE_ORDER=PCI_BUS_ID.
std::vector<unsigned> visible_gpus(nvml_source& nvml, const char* cuda_visible_devices);

/// The GPU families (nv_gpu_utilization, nv_gpu_memory_total_bytes,
/// nv_gpu_memory_used_bytes, nv_gpu_power_usage, nv_gpu_power_limit,
/// nv_energy_consumption), one series per visible GPU with exactly the
/// label gpu_uuid, updated by sample(). A GPU gets a series only for the
/// readings NVML gives it when the gauges are made. Thread-safe.
class gpu_gauges {
 public:
  /// The gauges of the GPUs `nvml` shows under `cuda_visible_devices`, with
  /// their first values read; null, and nothing registered, when `nvml` is
  /// null or no GPU is visible.
  static std::unique_ptr<gpu_gauges> make(prometheus::Registry& registry,
                                          std::unique_ptr<nvml_source> nvml,
                                          const char* cuda_visible_devices);

  gpu_gauges(const gpu_gauges&) = delete;
  gpu_gauges& operator=(const gpu_gauges&) = delete;

  /// Reads every GPU and updates its series; a reading NVML refuses leaves
  /// its series as it was.
  void sample();

  /// The number of GPUs reported.
  std::size_t gpu_count() const noexcept { return gpus_.size(); }

 private:
  // The series of one GPU; null where NVML gave no reading at start.
  struct gpu {
    unsigned index = 0;
    prometheus::Gauge* utilization = nullptr;
    prometheus::Gauge* memory_total = nullptr;
    prometheus::Gauge* memory_used = nullptr;
    prometheus::Gauge* power_usage = nullptr;
    prometheus::Gauge* power_limit = nullptr;
    prometheus::Counter* energy = nullptr;
    // The energy reading at start and the last one reported, in mJ.
    uint64_t energy_start_mj = 0;
    uint64_t energy_reported_mj = 0;
  };

  explicit gpu_gauges(std::unique_ptr<nvml_source> nvml) : nvml_(std::move(nvml)) {}
  void add_gpu(prometheus::Registry& registry, unsigned index, const std::string& uuid);
  void update(gpu& g);

  std::unique_ptr<nvml_source> nvml_;
  std::mutex mutex_;
  std::vector<gpu> gpus_;
};

} // namespace conch::runtime::statistics
