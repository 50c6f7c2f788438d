#include "conch/runtime/batching/batcher_config.hpp"

namespace conch::runtime::batching {

batcher_config batcher_config_from(const inference::ModelConfig& config) {
  batcher_config result;
  result.max_batch_size = config.max_batch_size();
  if (!config.has_dynamic_batching())
    return result;
  const auto& db = config.dynamic_batching();
  result.dynamic = true;
  result.preferred_batch_sizes.assign(db.preferred_batch_size().begin(),
                                      db.preferred_batch_size().end());
  result.max_queue_delay_us = db.max_queue_delay_microseconds();
  result.preserve_ordering = db.preserve_ordering();
  result.priority_levels = db.priority_levels();
  result.default_priority_level = db.default_priority_level();
  result.default_policy = queue_policy_from(db.default_queue_policy());
  for (const auto& [level, policy] : db.priority_queue_policy())
    result.level_policies.emplace(level, queue_policy_from(policy));
  return result;
}

} // namespace conch::runtime::batching
