#pragma once

#include "conch/runtime/inference_response.hpp"
#include "conch/transports/http/kserve/codec/decoded_infer.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http::kserve::codec {

/// The HTTP answer to an inference request (spec §1.6, §1.7, §1.10). For a
/// failed response, encode_error(r.error). Otherwise 200 with the JSON header
/// {"id" (when not empty), "model_name", "model_version" (a string),
/// "parameters" (when any), "outputs": [{"name", "datatype", "shape", "data"
/// | "parameters": {"binary_data_size"}}]}; each output is encoded as `how`
/// says (binary or JSON, classification, shared memory: name, datatype and
/// shape only). Binary outputs follow the JSON as separate body buffers,
/// which are the output tensors' own buffers (no copy), in output order;
/// zero-byte outputs add none. With any binary output the response carries
/// Content-Type application/octet-stream and Inference-Header-Content-Length
/// (the JSON's length); without, Content-Type application/json. An output
/// that cannot be encoded answers encode_error with its status.
response encode_infer_response(const runtime::inference_response& r, const decoded_infer& how);

} // namespace conch::transports::http::kserve::codec
