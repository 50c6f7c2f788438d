#pragma once

#include <string_view>

#include <rapidjson/document.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/http/kserve/codec/decoded_infer.hpp"

namespace conch::transports::http::kserve::codec {

/// Reads a request's top-level `parameters` object (spec §1.5, §0.4) into
/// `out`: sequence_id (unsigned number or string; 0 and "" mean none) into the
/// correlation id, sequence_start / sequence_end into the flags, priority,
/// timeout (microseconds), binary_data_output; every other key becomes a
/// typed request parameter (string, int, bool or double). Keys starting with
/// "triton_" are refused, as are values of any other JSON type; a reserved key
/// of the wrong type is "Unable to parse '<key>': ...". All errors are
/// invalid_argument.
/// More than max_request_parameters keys is invalid_argument too.
/// binary_data_output is read here; the other reserved keys and the custom
/// ones are applied by runtime::apply_request_parameter
/// (conch/runtime/request_parameters.hpp), and this words its errors.
runtime::status read_request_parameters(const rapidjson::Value& params, decoded_infer& out);

/// Reads one entry `key`: `value` of a request's parameters into `out`, as
/// read_request_parameters does for each (for a caller that gathers the
/// entries from elsewhere and counts them itself).
runtime::status read_request_parameter(std::string_view key, const rapidjson::Value& value,
                                       decoded_infer& out);

} // namespace conch::transports::http::kserve::codec
