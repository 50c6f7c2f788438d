#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

namespace conch::runtime::statistics {

/// Jiffies of all CPUs from the "cpu" line of /proc/stat.
struct cpu_times {
  uint64_t busy = 0;
  uint64_t total = 0;
};

/// RAM from /proc/meminfo, in bytes; used = MemTotal - MemAvailable.
struct memory_info {
  uint64_t total_bytes = 0;
  uint64_t used_bytes = 0;
};

/// The aggregate "cpu" line of /proc/stat; nullopt when absent or malformed.
std::optional<cpu_times> parse_proc_stat(std::string_view text);

/// MemTotal and MemAvailable of /proc/meminfo; nullopt when either is missing.
std::optional<memory_info> parse_meminfo(std::string_view text);

/// The busy share of the CPUs between two samples, in [0, 1]; 0 when no time
/// passed or the counters went backwards.
double cpu_utilization(const cpu_times& before, const cpu_times& after) noexcept;

/// The system CPU gauges (nv_cpu_utilization, nv_cpu_memory_total_bytes,
/// nv_cpu_memory_used_bytes) in a registry, updated by sample(). Thread-safe.
class cpu_gauges {
 public:
  /// Registers the three gauges, each with one unlabelled series at 0.
  explicit cpu_gauges(prometheus::Registry& registry);

  cpu_gauges(const cpu_gauges&) = delete;
  cpu_gauges& operator=(const cpu_gauges&) = delete;

  /// Reads /proc/stat and /proc/meminfo and updates the gauges; false (the
  /// gauges unchanged) when either cannot be read or parsed.
  bool sample();

  /// Updates the gauges from the texts of /proc/stat and /proc/meminfo. The
  /// utilization is that since the previous update (0 on the first).
  bool update(std::string_view proc_stat, std::string_view meminfo);

 private:
  prometheus::Gauge& utilization_;
  prometheus::Gauge& memory_total_;
  prometheus::Gauge& memory_used_;
  std::mutex mutex_;
  std::optional<cpu_times> previous_;
};

} // namespace conch::runtime::statistics
