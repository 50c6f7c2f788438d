#pragma once

#include <string>

#include "conch/runtime/status.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// Checks the tensors of a configuration: every input and output has a
/// unique name, a data type and dims whose values are >= 1 or -1; a reshape
/// holds the same number of elements as its dims (Triton's rule, including
/// the matching of the parts between variable-size dimensions); image
/// formats have 3 dims; shape tensors and non-linear I/O appear only on
/// tensorrt_plan models; batch_input and batch_output refer to existing
/// tensors. Errors are INVALID_ARG naming `file`, the field and the value.
status validate_tensors(const inference::ModelConfig& config, const std::string& file);

} // namespace conch::runtime::model_config
