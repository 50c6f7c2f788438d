#pragma once

#include <string>

#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/result.hpp"

namespace conch::transports::http::kserve {

/// The JSON object of one generate response (spec §1.17): "id" (when not
/// empty), "model_name", "model_version" (a string), then each output as a
/// key (one element: a scalar; otherwise a flat array) and each response
/// parameter as a key. The errors of write_json_tensor_data (FP16 and BF16
/// outputs cannot be JSON).
runtime::result<std::string> encode_generate_response(const runtime::inference_response& r);

/// `{"error":"<message>"}`, escaped as JSON.
std::string generate_error_json(const std::string& message);

} // namespace conch::transports::http::kserve
