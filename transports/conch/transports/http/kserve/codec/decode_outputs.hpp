#pragma once

#include <rapidjson/document.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/http/kserve/codec/decoded_infer.hpp"

namespace conch::transports::http::kserve::codec {

/// Decodes a request's `outputs` array (spec §1.5, §1.6, §1.10): each entry's
/// name goes to `out.request.requested_outputs` and its parameters
/// (binary_data, classification, shared_memory_region / _offset / _byte_size)
/// to `out.outputs`. Shared memory together with classification or with
/// binary_data true is refused with Triton's messages. All errors are
/// invalid_argument.
runtime::status decode_outputs(const rapidjson::Value& outputs, decoded_infer& out);

} // namespace conch::transports::http::kserve::codec
