#pragma once

#include "conch/runtime/tensor.hpp"
#include "conch/transports/http/kserve/codec/json_writer.hpp"

namespace conch::transports::http::kserve::codec {

/// Writes the elements of output `t` as one flat JSON array (spec §1.7): BOOL
/// as true/false, integers as numbers, FP32 through double, BYTES as strings.
/// FP16 and BF16 are invalid_argument ("sending FP16 data via JSON is not
/// supported. Please use the binary data format for output"); bytes that
/// disagree with the shape are internal ("output tensor shape does not match
/// size of output for '<name>'"). On error the writer holds a partial value
/// and must be discarded. Requires host-accessible data.
runtime::status write_json_tensor_data(json_writer& w, const runtime::tensor& t);

} // namespace conch::transports::http::kserve::codec
