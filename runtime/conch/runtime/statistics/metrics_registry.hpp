#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <prometheus/registry.h>

#include "conch/runtime/statistics/model_metrics.hpp"

namespace conch::runtime::statistics {

class metric_families;

/// The Prometheus registry of one server, with the per-model inference
/// families (nv_inference_*, nv_model_load_duration_secs) registered once.
/// Thread-safe. Model handles it hands out may outlive it.
class metrics_registry {
 public:
  // -- constructors ----------------------------------------------------------

  /// A fresh registry holding the per-model families with no series.
  metrics_registry();
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
  std::unique_ptr<model_metrics> add_model(const std::string& model, int64_t version,
                                           const std::map<std::string, std::string>& metric_tags);

  // -- exposition ------------------------------------------------------------

  /// Every family of the registry, then those of
  /// custom_metric_family::process_registry(), in the Prometheus text format
  /// 0.0.4.
  std::string serialize() const;

 private:
  std::shared_ptr<metric_families> families_;
};

} // namespace conch::runtime::statistics
