#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/labels.h>
#include <prometheus/registry.h>

#include "conch/runtime/result.hpp"

namespace conch::runtime::statistics {

/// The kinds of custom metric (values as TRITONSERVER_MetricKind).
enum class metric_kind { counter = 0, gauge = 1, histogram = 2 };

/// A metric family that a user or a backend defines (Triton's
/// TRITONSERVER_MetricFamily): a counter, gauge or histogram family in a Prometheus
/// registry, removed from it when the last handle goes. Thread-safe.
class custom_metric_family {
 public:
  // -- constructors ----------------------------------------------------------

  /// Registers the family `name` in `registry`. Fails with invalid_argument
  /// on a name Prometheus refuses or one starting with the reserved "nv_",
  /// and with already_exists when `registry` holds a custom family `name`.
  static result<std::shared_ptr<custom_metric_family>>
  make(std::shared_ptr<prometheus::Registry> registry, metric_kind kind,
       const std::string& name, const std::string& description);

  /// Removes the family (and any series left) from its registry.
  ~custom_metric_family();

  custom_metric_family(const custom_metric_family&) = delete;
  custom_metric_family& operator=(const custom_metric_family&) = delete;

  /// The process-wide registry of the families made without a server (the
  /// Python MetricFamily); every server's exposition includes it.
  static const std::shared_ptr<prometheus::Registry>& process_registry();

  // -- properties ------------------------------------------------------------

  metric_kind kind() const noexcept { return kind_; }
  const std::string& name() const noexcept { return name_; }
  const std::string& description() const noexcept { return description_; }

 private:
  friend class custom_metric;

  custom_metric_family(std::shared_ptr<prometheus::Registry> registry, metric_kind kind,
                       std::string name, std::string description);

  // The series with `labels`, created at 0 on first use; null when
  // prometheus-cpp refuses the labels. Each success pairs with a release().
  prometheus::Counter* acquire_counter(const prometheus::Labels& labels) noexcept;
  prometheus::Gauge* acquire_gauge(const prometheus::Labels& labels) noexcept;
  prometheus::Histogram* acquire_histogram(const prometheus::Labels& labels,
                                           const std::vector<double>& buckets) noexcept;
  void release(const prometheus::Labels& labels) noexcept;

  std::shared_ptr<prometheus::Registry> registry_;
  metric_kind kind_;
  std::string name_;
  std::string description_;
  prometheus::Family<prometheus::Counter>* counters_ = nullptr;
  prometheus::Family<prometheus::Gauge>* gauges_ = nullptr;
  prometheus::Family<prometheus::Histogram>* histograms_ = nullptr;
  std::mutex mutex_;
  // Metrics with equal labels share one series; the last one removes it.
  std::map<prometheus::Labels, std::size_t> uses_;
};

} // namespace conch::runtime::statistics
