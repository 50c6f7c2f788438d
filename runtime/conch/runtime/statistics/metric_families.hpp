#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/labels.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

namespace conch::runtime::statistics {

/// The latency phases that have a duration counter and a summary each, in
/// the order of model_series::durations and model_series::summaries.
enum class latency_phase : std::size_t { request, queue, compute_input, compute_infer, compute_output };

/// The number of latency phases.
inline constexpr std::size_t latency_phase_count = 5;

/// Which optional series one model version gets.
struct series_options {
  /// The *_duration_us counters.
  bool counter_latencies = true;
  /// The *_summary_us summaries, tracking these quantiles (none: no summaries).
  prometheus::Summary::Quantiles summary_quantiles;
  /// The bucket bounds of the first-response histogram (none: no histogram).
  prometheus::Histogram::BucketBoundaries first_response_buckets;
  /// The nv_cache_* counters (a model using the response cache).
  bool response_cache = false;
};

/// The series of one model version in every per-model family. The pointers
/// point into the families and stay valid until the series are released;
/// optional series are null when the version does not have them.
struct model_series {
  prometheus::Counter* request_success = nullptr;
  /// Indexed by failure_kind: backend, rejected, cancelled, other.
  std::array<prometheus::Counter*, 4> request_failure{};
  prometheus::Counter* inference_count = nullptr;
  prometheus::Counter* exec_count = nullptr;
  /// Indexed by latency_phase; null without counter_latencies.
  std::array<prometheus::Counter*, latency_phase_count> durations{};
  /// Indexed by latency_phase; null without summaries.
  std::array<prometheus::Summary*, latency_phase_count> summaries{};
  /// Null without the histogram.
  prometheus::Histogram* first_response = nullptr;
  prometheus::Gauge* pending_request_count = nullptr;
  prometheus::Gauge* load_duration_secs = nullptr;
  /// Null unless the version uses the response cache.
  prometheus::Counter* cache_hits = nullptr;
  prometheus::Counter* cache_misses = nullptr;
  prometheus::Counter* cache_hit_duration = nullptr;
  prometheus::Counter* cache_miss_duration = nullptr;
};

/// The per-model metric families of one registry, and the table of the model
/// series created in them. Thread-safe. Shared by the metrics_registry and
/// every model_metrics handle, so either may outlive the other.
class metric_families {
 public:
  // -- constructors ----------------------------------------------------------

  /// Registers the families in `registry`. Families without series are left
  /// out of the exposition, so the optional ones appear only with a model
  /// that has them.
  explicit metric_families(std::shared_ptr<prometheus::Registry> registry);

  metric_families(const metric_families&) = delete;
  metric_families& operator=(const metric_families&) = delete;

  // -- properties ------------------------------------------------------------

  /// The registry the families live in.
  const std::shared_ptr<prometheus::Registry>& registry() const noexcept { return registry_; }

  // -- series ----------------------------------------------------------------

  /// The series with `labels`, created at 0 on first use with `options`
  /// (later uses share them as they are); null when prometheus-cpp refuses
  /// the labels. Each successful call must be paired with one release().
  const model_series* acquire(const prometheus::Labels& labels,
                              const series_options& options) noexcept;

  /// Drops one use of the series with `labels`; the last use removes them
  /// from the families.
  void release(const prometheus::Labels& labels) noexcept;

 private:
  // Two loaded instances of one model version (a reload overlapping the old
  // copy) share their series; counting uses keeps the first unload from
  // removing series the other still updates.
  struct entry {
    std::size_t uses = 0;
    std::unique_ptr<model_series> series;
  };

  using counter_family = prometheus::Family<prometheus::Counter>;

  std::unique_ptr<model_series> create(const prometheus::Labels& labels,
                                       const series_options& options);
  void remove(const model_series& series);

  std::shared_ptr<prometheus::Registry> registry_;
  counter_family& request_success_;
  counter_family& request_failure_;
  counter_family& inference_count_;
  counter_family& exec_count_;
  std::array<counter_family*, latency_phase_count> durations_;
  std::array<prometheus::Family<prometheus::Summary>*, latency_phase_count> summaries_;
  prometheus::Family<prometheus::Histogram>& first_response_;
  prometheus::Family<prometheus::Gauge>& pending_request_count_;
  prometheus::Family<prometheus::Gauge>& load_duration_;
  counter_family& cache_hits_;
  counter_family& cache_misses_;
  counter_family& cache_hit_duration_;
  counter_family& cache_miss_duration_;
  std::mutex mutex_;
  std::map<prometheus::Labels, entry> series_;
};

} // namespace conch::runtime::statistics
