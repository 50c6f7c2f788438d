#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/labels.h>

#include "conch/runtime/result.hpp"
#include "conch/runtime/statistics/custom_metric_family.hpp"

namespace conch::runtime::statistics {

/// One series of a custom_metric_family (Triton's TRITONSERVER_Metric), at 0
/// when made; it leaves the exposition when the last metric with its labels
/// is destroyed. Thread-safe: updates are atomic.
class custom_metric {
 public:
  // -- constructors ----------------------------------------------------------

  /// The series of `family` with `labels`; a histogram's with the upper
  /// bounds `buckets` (strictly increasing), which only a histogram takes.
  /// Fails with invalid_argument on a label name Prometheus refuses and on
  /// buckets that are out of order or given to another kind.
  static result<std::unique_ptr<custom_metric>>
  make(std::shared_ptr<custom_metric_family> family,
       const std::map<std::string, std::string>& labels,
       const std::vector<double>& buckets = {});

  ~custom_metric();

  custom_metric(const custom_metric&) = delete;
  custom_metric& operator=(const custom_metric&) = delete;

  // -- properties ------------------------------------------------------------

  metric_kind kind() const noexcept { return family_->kind(); }
  const std::shared_ptr<custom_metric_family>& family() const noexcept { return family_; }
  /// A counter's or gauge's value; 0 for a histogram, which has none.
  double value() const noexcept;

  // -- updates ---------------------------------------------------------------

  /// Adds `delta`; a counter refuses a negative one (invalid_argument), a
  /// histogram any (unsupported).
  status increment(double delta);

  /// Sets a gauge to `v`; a counter or histogram refuses (unsupported).
  status set_value(double v);
  /// Adds an observation to a histogram; other kinds refuse (unsupported).
  status observe(double v);

 private:
  custom_metric(std::shared_ptr<custom_metric_family> family, prometheus::Labels labels,
                prometheus::Counter* counter, prometheus::Gauge* gauge,
                prometheus::Histogram* histogram) noexcept;

  std::shared_ptr<custom_metric_family> family_;
  prometheus::Labels labels_;
  prometheus::Counter* counter_;
  prometheus::Gauge* gauge_;
  prometheus::Histogram* histogram_;
};

} // namespace conch::runtime::statistics
