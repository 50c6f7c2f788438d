#pragma once

#include <memory>

#include "conch/runtime/tensor_reshape.hpp"
#include "model_config.pb.h"

namespace conch::runtime::validation {

/// The reshapes a validated configuration declares on its inputs and
/// outputs; null when it declares none, so a request of such a model pays
/// nothing for them.
std::shared_ptr<const tensor_reshapes> model_reshapes(const inference::ModelConfig& config);

} // namespace conch::runtime::validation
