#pragma once

#include <cstddef>
#include <string_view>

#include "conch/runtime/status.hpp"

namespace conch::transports::protocol {

// How much one inference request may carry, the same over HTTP and gRPC.
// Generous for any real model; they exist so that the work of decoding and
// checking a request is bounded by more than its byte size.

/// The most inputs one inference request may carry.
inline constexpr size_t max_request_inputs = 4096;
/// The most outputs one inference request may list.
inline constexpr size_t max_request_outputs = 4096;
/// The most entries of one `parameters` object: the request's, an input's or
/// an output's.
inline constexpr size_t max_request_parameters = 1024;

/// ok when a request with `count` inputs is within max_request_inputs;
/// otherwise invalid_argument "the request has <count> inputs, more than the
/// limit of 4096".
runtime::status check_input_count(size_t count);

/// As check_input_count, for outputs and max_request_outputs.
runtime::status check_output_count(size_t count);

/// As check_input_count, for the `count` entries of the parameters of
/// `owner` ("the request", "input 'x'", "output 'y'") and
/// max_request_parameters.
runtime::status check_parameter_count(std::string_view owner, size_t count);

/// check_parameter_count for the tensor `name` of `kind` ("input",
/// "output"), whose owner ("input 'x'") is spelled only when the count is
/// refused.
runtime::status check_parameter_count(std::string_view kind, std::string_view name, size_t count);

/// invalid_argument "input '<name>' already exists in request" (Triton's text).
runtime::status repeated_input(std::string_view name);

} // namespace conch::transports::protocol
