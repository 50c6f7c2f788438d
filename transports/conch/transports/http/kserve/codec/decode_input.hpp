#pragma once

#include <string_view>

#include <rapidjson/document.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/http/kserve/codec/binary_extension.hpp"
#include "conch/transports/http/kserve/codec/decoded_infer.hpp"

namespace conch::transports::http::kserve::codec {

/// Decodes one element of a request's `inputs` array (spec §1.5, §1.6) and
/// appends the tensor to `out.request.inputs`. The input must carry exactly
/// one of `data`, `parameters.binary_data_size` and
/// `parameters.shared_memory_region`. Binary data is the next slice of
/// `binary` (aliasing the body) and must agree with the shape and datatype;
/// JSON data is converted into a new buffer; shared-memory inputs are listed
/// in `out.shared_memory_inputs` with no data. `model` names the model in
/// messages.
runtime::status decode_input(const rapidjson::Value& input, binary_section& binary,
                             std::string_view model, decoded_infer& out);

} // namespace conch::transports::http::kserve::codec
