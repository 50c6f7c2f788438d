#pragma once

#include <string>

#include "conch/runtime/status.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// Checks the scheduler settings (the `scheduling_choice` oneof) against the
/// rest of the configuration, as Triton does: preferred batch sizes within
/// 1..max_batch_size; with priority_levels > 0 a default_priority_level and
/// priority_queue_policy keys within 1..priority_levels; preserve_ordering
/// only with at most one priority level and no DELAY timeouts; sequence
/// controls well formed; ensembles with steps and without instance groups,
/// optimization or warm-up. Conch also rejects preserve_ordering on a
/// decoupled model (its responses have no request order to keep).
/// Errors are INVALID_ARG naming `file`, the field and the value.
status validate_scheduling(const inference::ModelConfig& config, const std::string& file);

} // namespace conch::runtime::model_config
