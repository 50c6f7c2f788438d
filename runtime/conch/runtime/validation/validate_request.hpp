#pragma once

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/status.hpp"
#include "model_config.pb.h"

namespace conch::runtime::validation {

/// Checks a request against the configuration of the model version that will
/// serve it: input names, count, data types, shapes (with the batch dimension
/// when max_batch_size > 0), batch size, data sizes and requested outputs.
/// Messages follow Triton's wording where clients match on them.
status validate_request(const inference_request& request, const inference::ModelConfig& config);

} // namespace conch::runtime::validation
