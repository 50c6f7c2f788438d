#pragma once

#include <string>

#include "conch/runtime/status.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// Checks a normalised configuration (see `normalize`) the way Triton does
/// before it loads a model, plus the checks Conch adds (unknown enum numbers,
/// duplicate tensor names, decoupled models with preserve_ordering, and the
/// bounds of `limits` on what a load allocates: see validate_limits).
/// Returns the first problem found as INVALID_ARG (INTERNAL for a group
/// still of KIND_AUTO, which normalisation should have resolved). Every
/// message reads "<file>: <field>: <problem>", where `file` names the
/// source of the configuration and the field path looks like
/// "input[1].dims[0]" or "dynamic_batching.default_priority_level".
status validate(const inference::ModelConfig& config, const std::string& file);

} // namespace conch::runtime::model_config
