#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <prometheus/labels.h>

#include "conch/runtime/inference_job.hpp"

namespace conch::runtime::statistics {

class metric_families;
struct model_series;

/// The Prometheus series of one loaded model version, created at 0 by
/// metrics_registry::add_model. The repository retires them when the version
/// unloads, so an unload that has answered leaves none behind; a handle that
/// is destroyed unretired retires them then. The series leave the exposition
/// when the last handle for the same labels lets go. Thread-safe: every
/// update is an atomic add on a cached series, never a lookup in a family,
/// and an update that races with retire() either lands before it or is
/// dropped.
class model_metrics {
 public:
  // -- constructors ----------------------------------------------------------

  /// Takes one use of `series` (acquired from `families` for `labels`).
  model_metrics(std::shared_ptr<metric_families> families, prometheus::Labels labels,
                const model_series& series) noexcept;

  /// Retires the series if retire() has not.
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

  /// Counts a response-cache hit or miss and its lookup's nanoseconds (if
  /// the version has the cache series).
  void record_cache(bool hit, uint64_t ns) noexcept;

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

  /// The current value of the pending request gauge (for tests and logs);
  /// 0 once retired.
  double pending() const noexcept;

  // -- retiring ----------------------------------------------------------------

  /// Lets go of the series: waits for updates running on other threads,
  /// drops every later one, and releases the series (the last handle for
  /// the labels removes them from the exposition). Idempotent.
  void retire() noexcept;

  /// True once retire() has run.
  bool retired() const noexcept;

 private:
  // Counts the updates in progress; the top bit is set by retire().
  class update_guard;

  std::shared_ptr<metric_families> families_;
  prometheus::Labels labels_;
  const model_series& series_;
  mutable std::atomic<uint64_t> state_{0};
};

} // namespace conch::runtime::statistics
