#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/registry.h>

#include "conch/runtime/statistics/metrics_settings.hpp"
#include "conch/runtime/statistics/model_metrics.hpp"

namespace conch::runtime::statistics {

class metric_families;

/// What a model's configuration says about its optional series.
struct model_metric_options {
  /// True for decoupled models, the only ones with a first-response histogram.
  bool decoupled = false;
  /// The first-response histogram's bucket bounds from the config's
  /// model_metrics (ascending); empty keeps the defaults 100, 500, 2000, 5000.
  std::vector<double> first_response_buckets;
  /// True when the model's requests are looked up in the response cache:
  /// the nv_cache_* series.
  bool response_cache = false;
};

/// The Prometheus registry of one server, with the per-model inference
/// families (nv_inference_*, nv_model_load_duration_secs) registered once.
/// Thread-safe. Model handles it hands out may outlive it.
class metrics_registry {
 public:
  // -- constructors ----------------------------------------------------------

  /// A fresh registry holding the per-model families with no series; the
  /// optional latency families follow `settings`.
  explicit metrics_registry(metrics_settings settings = {});
  ~metrics_registry();

  metrics_registry(const metrics_registry&) = delete;
  metrics_registry& operator=(const metrics_registry&) = delete;

  // -- properties ------------------------------------------------------------

  /// The underlying registry, for families registered elsewhere (system and
  /// backend metrics); they appear in serialize() too.
  std::shared_ptr<prometheus::Registry> registry() const;

  // -- models ----------------------------------------------------------------

  /// Creates every per-model series of `model` at 0 (all four failure
  /// reasons included), labelled model, version and `_<key>` per metric tag.
  /// Characters of a tag key that a label name cannot hold become '_'.
  /// Returns null when the labels are still unusable (a key starting with
  /// '_' gives a reserved `__` name); the model then runs without metrics.
  /// Loading the same labels twice shares the series until both are gone.
  /// The duration counters exist unless counter_latencies is off; the
  /// summaries with summary_latencies; the first-response histogram with
  /// histogram_latencies, for decoupled models only.
  std::unique_ptr<model_metrics> add_model(const std::string& model, int64_t version,
                                           const std::map<std::string, std::string>& metric_tags,
                                           const model_metric_options& options = {});

  // -- other sources ---------------------------------------------------------

  /// Adds series rendered at each scrape by `source` (a frontend's
  /// connection_metrics), for as long as it lives. Families of one name from
  /// several sources are exposed as one.
  void add_source(std::weak_ptr<const prometheus::Collectable> source);

  // -- exposition ------------------------------------------------------------

  /// Every family of the registry, then those of
  /// custom_metric_family::process_registry(), then the sources', in the
  /// Prometheus text format 0.0.4.
  std::string serialize() const;

 private:
  metrics_settings settings_;
  std::shared_ptr<metric_families> families_;
  mutable std::mutex sources_mutex_;
  mutable std::vector<std::weak_ptr<const prometheus::Collectable>> sources_;  // guarded
};

} // namespace conch::runtime::statistics
