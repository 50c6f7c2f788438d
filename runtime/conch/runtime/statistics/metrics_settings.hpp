#pragma once

#include <map>
#include <string>
#include <vector>

#include "conch/runtime/result.hpp"

namespace conch::runtime::statistics {

/// One quantile a latency summary tracks, with its allowed rank error.
struct summary_quantile {
  /// The quantile, in [0, 1].
  double quantile = 0.5;
  /// The allowed error of its rank, in [0, 1].
  double error = 0.05;
};

/// Which optional per-model latency families a server keeps: Triton's
/// `--metrics-config` settings of the unnamed group.
struct metrics_settings {
  /// The cumulative *_duration_us counters (default on).
  bool counter_latencies = true;
  /// The *_summary_us summaries (default off).
  bool summary_latencies = false;
  /// The first-response histogram of decoupled models (default off).
  bool histogram_latencies = false;
  /// The quantiles every summary tracks.
  std::vector<summary_quantile> summary_quantiles = {
    {0.5, 0.05}, {0.9, 0.01}, {0.95, 0.001}, {0.99, 0.001}, {0.999, 0.001}};
};

/// The settings from Options.metrics_configuration: group -> setting ->
/// value. Only the unnamed group "" exists; its settings are
/// counter_latencies, summary_latencies and histogram_latencies ("true" or
/// "false") and summary_quantiles ("<q>:<error>,..."). Anything else, and
/// any value that does not parse, is an invalid_argument naming it.
result<metrics_settings>
parse_metrics_configuration(const std::map<std::string, std::map<std::string, std::string>>& groups);

/// The quantile list of a summary_quantiles value ("0.5:0.05,0.9:0.01");
/// invalid_argument when an entry is malformed or out of [0, 1].
result<std::vector<summary_quantile>> parse_summary_quantiles(const std::string& text);

} // namespace conch::runtime::statistics
