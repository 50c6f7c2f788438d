#pragma once

#include <string>

#include <google/protobuf/message.h>

#include "conch/runtime/status.hpp"

namespace conch::runtime::model_config {

/// Checks that every enum field set anywhere in `message` holds a value its
/// enum defines. proto3 keeps unknown numbers ("data_type: 99" in text, 99 in
/// JSON) instead of rejecting them, so this walk is what rejects them.
/// `path` is the field path of `message` ("" for the root); the error names
/// `file`, the full field path and the value.
status validate_enum_values(const google::protobuf::Message& message, const std::string& path,
                            const std::string& file);

} // namespace conch::runtime::model_config
