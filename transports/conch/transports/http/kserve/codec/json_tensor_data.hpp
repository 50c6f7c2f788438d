#pragma once

#include <cstdint>
#include <string_view>

#include <rapidjson/document.h>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/data_type.hpp"
#include "conch/runtime/result.hpp"

namespace conch::transports::http::kserve::codec {

/// Converts the JSON `data` of input `input_name` into the tensor's raw
/// bytes (spec §0.3): arrays nested to any depth up to max_json_depth are
/// read row-major; integers must be integral and fit the type; BOOL takes
/// true/false; FP32/FP64 take any number; BYTES takes strings, serialised as
/// length-prefixed elements. FP16 and BF16 are refused (invalid_argument,
/// "receiving FP16 data via JSON is not supported. Please use the binary data
/// format for input <name>"). An element count other than `element_count` is
/// internal "Failed to parse 'data' field: shape does not match true shape",
/// as Triton classes it. Returns a new host buffer.
runtime::result<runtime::buffer> read_json_tensor_data(const rapidjson::Value& data,
                                                       runtime::data_type type,
                                                       int64_t element_count,
                                                       std::string_view input_name);

} // namespace conch::transports::http::kserve::codec
