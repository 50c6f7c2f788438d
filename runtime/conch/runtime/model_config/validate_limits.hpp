#pragma once

#include <string>

#include "conch/runtime/status.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// Checks a normalised configuration against the bounds of `limits`: the
/// instances of the model, the slots of its sequence batcher, the size of a
/// warm-up sample and the bytes of each tensor the configuration makes the
/// server fill (warm-up inputs, sequence states). Counts and products are
/// computed without overflow. Errors are INVALID_ARG naming `file`, the
/// field, the value and the bound.
status validate_limits(const inference::ModelConfig& config, const std::string& file);

} // namespace conch::runtime::model_config
