#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <prometheus/labels.h>

#include "conch/runtime/inference_job.hpp"

namespace conch::runtime::statistics {

class metric_families;
struct model_series;

/// The Prometheus series of one loaded model version, created at 0 by
/// metrics_registry::add_model and removed from the exposition when the last
/// handle for the same labels is destroyed. Thread-safe: every update is an
/// atomic add on a cached series, never a lookup in a family.
class model_metrics {
 public:
  // -- constructors ----------------------------------------------------------

  /// Takes one use of `series` (acquired from `families` for `labels`).
  model_metrics(std::shared_ptr<metric_families> families, prometheus::Labels labels,
                const model_series& series) noexcept;

  /// Releases the series; the last handle removes them from the families.
  ~model_metrics();

  model_metrics(const model_metrics&) = delete;
  model_metrics& operator=(const model_metrics&) = delete;

  // -- properties ------------------------------------------------------------

  /// The labels of every series of the model (model, version, `_<tag>`...),
  /// for custom metrics that want the same identity.
  const prometheus::Labels& labels() const noexcept { return labels_; }

  // -- updates ---------------------------------------------------------------

  /// Counts one successful request and adds its durations, in nanoseconds,
  /// to the duration counters and the summaries the version has.
  void record_success(uint64_t request_ns, uint64_t queue_ns, uint64_t compute_input_ns,
                      uint64_t compute_infer_ns, uint64_t compute_output_ns) noexcept;

  /// Observes the time from a request's arrival to its first response, in
  /// nanoseconds, in the first-response histogram (if the version has one).
  void record_first_response(uint64_t ns) noexcept;

  /// True when the version has the first-response histogram.
  bool has_first_response_histogram() const noexcept;

  /// Counts one failed request under the `reason` label of `kind`.
  void record_failure(failure_kind kind) noexcept;

  /// Counts one model execution of `batch_size` inferences.
  void record_execution(std::size_t batch_size) noexcept;

  /// Moves the pending request gauge by `delta`.
  void add_pending(int64_t delta) noexcept;

  /// Sets the load duration gauge.
  void set_load_duration(double seconds) noexcept;

  /// The current value of the pending request gauge (for tests and logs).
  double pending() const noexcept;

 private:
  std::shared_ptr<metric_families> families_;
  prometheus::Labels labels_;
  const model_series& series_;
};

} // namespace conch::runtime::statistics
