#pragma once

#include <cstdint>
#include <string_view>

#include "conch/runtime/result.hpp"

namespace conch::transports::grpc {

/// Parses a request's `version` field: "" means any version (-1), otherwise
/// a decimal integer > 0; INVALID_ARG for anything else.
runtime::result<int64_t> parse_model_version(std::string_view text);

} // namespace conch::transports::grpc
