#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/statistics/statistics_snapshot.hpp"

namespace conch::runtime::statistics {

/// The per-response-index statistics of a decoupled model version.
/// Thread-safe, behind one mutex: the stream of a decoupled model is long
/// and unbounded, so its indices cannot be pre-sized like batch sizes.
///
/// Each response is one of success (outputs, no error), empty_response (no
/// outputs, no error: typically the flag-only final response), cancel (a
/// CANCELLED error) or fail (any other error). Its duration runs from the
/// previous response of the same job (the first: from the execution start)
/// to its delivery; compute_infer and compute_output count the success and
/// fail responses, split at the job's output_start when that
/// falls inside the interval (else all of it is compute_infer).
class response_table {
 public:
  /// Counts `response`, delivered at `now` as response number
  /// `job.response_count()` (1-based, so its index is that minus one).
  void record(const inference_job& job, const inference_response& response, uint64_t now);

  /// Drops what the table remembers about `job`; called when it completes.
  void forget(const inference_job& job);

  /// Index -> statistics of every index seen so far.
  std::map<uint64_t, response_stat> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<uint64_t, response_stat> stats_;
  // When each running job's previous response was delivered.
  std::unordered_map<const inference_job*, uint64_t> last_response_;
};

} // namespace conch::runtime::statistics
