#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace conch::runtime::statistics {

/// A count of events and the nanoseconds they took together, as the
/// statistics extension reports it (`{"count":N,"ns":N}`).
struct duration_stat {
  /// How many events.
  uint64_t count = 0;
  /// Their nanoseconds, summed.
  uint64_t ns = 0;

  friend bool operator==(const duration_stat& a, const duration_stat& b) {
    return a.count == b.count && a.ns == b.ns;
  }
};

/// The compute times of the executions that ran at one batch size.
struct batch_stat {
  /// The batch size; every count below is a number of executions.
  uint64_t batch_size = 0;
  duration_stat compute_input;
  duration_stat compute_infer;
  duration_stat compute_output;
};

/// The statistics of the responses at one position of a decoupled model's
/// response stream (the first response, the second, ...).
struct response_stat {
  duration_stat compute_infer;
  duration_stat compute_output;
  duration_stat success;
  duration_stat fail;
  duration_stat empty_response;
  duration_stat cancel;
};

/// Memory a model holds on one device.
struct memory_usage_entry {
  /// "CPU", "CPU_PINNED" or "GPU".
  std::string type;
  /// The device id.
  uint64_t id = 0;
  /// The bytes held.
  uint64_t byte_size = 0;
};

/// A copy of one model version's statistics record at one moment: every
/// field of the statistics extension's `model_stats` entry. Plain data.
struct statistics_snapshot {
  /// The model's name.
  std::string name;
  /// The model version (a string on the wire).
  int64_t version = 0;
  /// Wall-clock milliseconds since the epoch of the last completed request; 0 if none.
  uint64_t last_inference = 0;
  /// The sum of the batch sizes of all executions.
  uint64_t inference_count = 0;
  /// The number of model executions.
  uint64_t execution_count = 0;
  /// Successful requests, from arrival to the final response.
  duration_stat success;
  /// Failed requests, from arrival to the error response.
  duration_stat fail;
  /// Per successful request: from entering the queue to the execution start.
  duration_stat queue;
  /// Per successful request: the execution phases it took part in.
  duration_stat compute_input;
  duration_stat compute_infer;
  duration_stat compute_output;
  /// Requests answered from the response cache, and those looked up there
  /// and not found, with the lookups' times.
  duration_stat cache_hit;
  duration_stat cache_miss;
  /// Batch sizes that ran at least once, sorted by batch size.
  std::vector<batch_stat> batch_stats;
  /// Response index -> statistics; empty unless the model is decoupled.
  std::map<uint64_t, response_stat> response_stats;
  /// Empty: Conch does not report model memory yet.
  std::vector<memory_usage_entry> memory_usage;
};

} // namespace conch::runtime::statistics
