#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace conch::bench {

/// One benchmark's headline figure from its last run, and its failed requests.
struct figure {
  double value = 0;
  int64_t errors = 0;
};

/// The headline figures of a benchmark binary, for the summary it prints
/// after Google Benchmark's table. Written by the benchmarks, which run one at
/// a time on the main thread.
struct bench_results {
  /// Round-trip p50 in µs, by benchmark name.
  std::map<std::string, figure> p50_us;
  /// Completed requests per second, by benchmark name.
  std::map<std::string, figure> infer_per_s;
};

/// The binary's one result table.
inline bench_results& results() {
  static bench_results r;
  return r;
}

} // namespace conch::bench
