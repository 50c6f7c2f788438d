#pragma once

#include <cstdint>
#include <string>

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/result.hpp"
#include "conch/transports/http/request.hpp"
#include "model_config.pb.h"

namespace conch::transports::http::kserve {

/// Decodes the body of `POST .../generate` and `.../generate_stream` (spec
/// §1.17) into a request for `model` at `version`: every top-level key, and
/// every key of `parameters`, that names an input of `config` becomes that
/// input (a scalar or a 1-D array, of the input's datatype; its shape is the
/// configured dims with a batch of 1 for a batching model and the variable
/// dimension taking the element count); "id" becomes the request id; the
/// other keys become request parameters, as infer's `parameters` do.
/// INVALID_ARG naming the key for anything malformed. Runs on the loop
/// thread; never throws.
runtime::result<runtime::inference_request>
decode_generate_request(const request& req, const inference::ModelConfig& config,
                        const std::string& model, int64_t version);

} // namespace conch::transports::http::kserve
