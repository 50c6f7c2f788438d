#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "conch/runtime/batching/queue_policy.hpp"
#include "model_config.pb.h"

namespace conch::runtime::batching {

/// The scheduling settings of one model version: whether and how requests are
/// batched, their priority levels and the queue policy of each level.
struct batcher_config {
  /// True when the model has a dynamic_batching section.
  bool dynamic = false;
  /// The model's max_batch_size; 0 means the model does not batch.
  int32_t max_batch_size = 0;
  /// Batch sizes sent as soon as they can be formed (any order).
  std::vector<int32_t> preferred_batch_sizes;
  /// How long a request may wait for others to batch with, in microseconds.
  uint64_t max_queue_delay_us = 0;
  /// Whether responses must leave in request order (applied by the
  /// scheduler, not by the queue).
  bool preserve_ordering = false;
  /// The number of priority levels; 0 means a single level.
  uint64_t priority_levels = 0;
  /// The level of requests that name none (or an invalid one), 1-based.
  uint64_t default_priority_level = 0;
  /// The policy of every level without its own.
  queue_policy default_policy;
  /// The policies of individual levels, by 1-based level.
  std::map<uint64_t, queue_policy> level_policies;
};

/// The batcher settings of a normalised, validated model configuration; a
/// model without dynamic_batching gets `dynamic == false` and one level.
batcher_config batcher_config_from(const inference::ModelConfig& config);

} // namespace conch::runtime::batching
