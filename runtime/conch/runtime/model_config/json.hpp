#pragma once

#include <string>
#include <string_view>

#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// The JSON form of a configuration that Triton's GET .../config returns:
/// protobuf's JSON mapping with the proto field names (snake_case), every
/// primitive field printed even at its default, enums by name, unset
/// messages left out; then every 64-bit integer (which protobuf prints as a
/// string) turned back into a JSON number, except map keys, which JSON keeps
/// as strings. Compact, without whitespace. Thread-safe.
std::string to_json(const inference::ModelConfig& config);

/// Parses a configuration from JSON, as the load request's "config"
/// parameter carries it. Accepts snake_case or lowerCamelCase field names,
/// 64-bit integers as numbers or strings and enum names in any case; rejects
/// unknown fields. Fails with INVALID_ARG carrying protobuf's description.
result<inference::ModelConfig> from_json(std::string_view json);

} // namespace conch::runtime::model_config
