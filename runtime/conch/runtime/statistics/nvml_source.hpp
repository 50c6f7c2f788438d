#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace conch::runtime::statistics {

/// The memory of one GPU, in bytes.
struct gpu_memory {
  uint64_t total_bytes = 0;
  uint64_t used_bytes = 0;
};

/// The readings of the GPUs NVML sees, addressed by NVML index. Each reading
/// is nullopt when NVML refuses it (unsupported, no permission, GPU lost).
/// Implemented over libnvidia-ml by nvml_library and by fakes in tests.
/// Called from one thread at a time.
class nvml_source {
 public:
  virtual ~nvml_source() = default;

  /// The number of GPUs NVML sees.
  virtual unsigned device_count() = 0;

  /// The GPU's UUID ("GPU-xxxxxxxx-...").
  virtual std::optional<std::string> uuid(unsigned index) = 0;

  /// The share of the last sample period the GPU was busy, in percent.
  virtual std::optional<unsigned> utilization_percent(unsigned index) = 0;

  /// The GPU's total and used memory.
  virtual std::optional<gpu_memory> memory(unsigned index) = 0;

  /// The GPU's power draw, in milliwatts.
  virtual std::optional<unsigned> power_usage_mw(unsigned index) = 0;

  /// The GPU's power management limit, in milliwatts.
  virtual std::optional<unsigned> power_limit_mw(unsigned index) = 0;

  /// The energy the GPU used since the driver loaded, in millijoules.
  virtual std::optional<uint64_t> energy_mj(unsigned index) = 0;
};

} // namespace conch::runtime::statistics
