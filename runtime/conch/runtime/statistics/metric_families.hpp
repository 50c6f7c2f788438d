#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/labels.h>
#include <prometheus/registry.h>

namespace conch::runtime::statistics {

/// The series of one model version in every per-model family. The references
/// point into the families and stay valid until the series are released.
struct model_series {
  prometheus::Counter& request_success;
  /// Indexed by failure_kind: backend, rejected, cancelled, other.
  std::array<prometheus::Counter*, 4> request_failure;
  prometheus::Counter& inference_count;
  prometheus::Counter& exec_count;
  prometheus::Counter& request_duration_us;
  prometheus::Counter& queue_duration_us;
  prometheus::Counter& compute_input_duration_us;
  prometheus::Counter& compute_infer_duration_us;
  prometheus::Counter& compute_output_duration_us;
  prometheus::Gauge& pending_request_count;
  prometheus::Gauge& load_duration_secs;
};

/// The per-model metric families of one registry, and the table of the model
/// series created in them. Thread-safe. Shared by the metrics_registry and
/// every model_metrics handle, so either may outlive the other.
class metric_families {
 public:
  // -- constructors ----------------------------------------------------------

  /// Registers the families in `registry`.
  explicit metric_families(std::shared_ptr<prometheus::Registry> registry);

  metric_families(const metric_families&) = delete;
  metric_families& operator=(const metric_families&) = delete;

  // -- properties ------------------------------------------------------------

  /// The registry the families live in.
  const std::shared_ptr<prometheus::Registry>& registry() const noexcept { return registry_; }

  // -- series ----------------------------------------------------------------

  /// The series with `labels`, created at 0 on first use; null when
  /// prometheus-cpp refuses the labels. Each successful call must be paired
  /// with one release().
  const model_series* acquire(const prometheus::Labels& labels) noexcept;

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

  std::unique_ptr<model_series> create(const prometheus::Labels& labels);
  void remove(const model_series& series);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& request_success_;
  prometheus::Family<prometheus::Counter>& request_failure_;
  prometheus::Family<prometheus::Counter>& inference_count_;
  prometheus::Family<prometheus::Counter>& exec_count_;
  prometheus::Family<prometheus::Counter>& request_duration_;
  prometheus::Family<prometheus::Counter>& queue_duration_;
  prometheus::Family<prometheus::Counter>& compute_input_duration_;
  prometheus::Family<prometheus::Counter>& compute_infer_duration_;
  prometheus::Family<prometheus::Counter>& compute_output_duration_;
  prometheus::Family<prometheus::Gauge>& pending_request_count_;
  prometheus::Family<prometheus::Gauge>& load_duration_;
  std::mutex mutex_;
  std::map<prometheus::Labels, entry> series_;
};

} // namespace conch::runtime::statistics
