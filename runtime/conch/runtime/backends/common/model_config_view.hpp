#pragma once

#include <string>
#include <string_view>

#include "conch/runtime/data_type.hpp"
#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::runtime::backends::common {

/// The input of `config` called `name`, or nullptr.
const inference::ModelInput* find_input(const inference::ModelConfig& config,
                                        std::string_view name) noexcept;

/// The output of `config` called `name`, or nullptr.
const inference::ModelOutput* find_output(const inference::ModelConfig& config,
                                          std::string_view name) noexcept;

/// The runtime data type of a configuration data type. The enumerations share
/// their values, so this only guards against values outside the range.
data_type to_data_type(inference::DataType type) noexcept;

/// The string value of model parameter `name` in `config.parameters`, or
/// nullptr when the configuration does not set it.
const std::string* find_config_parameter(const inference::ModelConfig& config,
                                         const std::string& name) noexcept;

/// The non-negative integer value of model parameter `name`, or `fallback`
/// when it is absent. INVALID_ARG naming the parameter and the model when the
/// value is not a non-negative decimal integer.
result<int64_t> non_negative_config_parameter(const inference::ModelConfig& config,
                                              const std::string& name, int64_t fallback);

/// "model 'm': " put before `message`, so load errors name the model.
status model_error(const inference::ModelConfig& config, std::string_view message);

} // namespace conch::runtime::backends::common
