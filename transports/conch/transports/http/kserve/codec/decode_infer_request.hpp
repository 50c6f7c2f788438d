#pragma once

#include <cstdint>
#include <string>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/kserve/codec/decoded_infer.hpp"
#include "conch/transports/http/request.hpp"

namespace conch::transports::http::kserve::codec {

/// Decodes the body of `POST /v2/models/<model_name>[/versions/<v>]/infer`
/// (spec §1.5, §1.6, §0.4) into a request for `model_name` at
/// `model_version` (-1: the server picks) and the way to encode its answer.
/// The JSON part is the whole body, or its first
/// Inference-Header-Content-Length bytes; binary inputs are the following
/// bytes, consumed in input order, and their tensors alias `req.body`: the
/// body buffer stays alive as long as they do, and nothing is copied. Every
/// failure is a status whose code gives the HTTP status (status_mapping) and
/// whose message is the spec's. Runs on the loop thread; never throws.
runtime::result<decoded_infer> decode_infer_request(const request& req, std::string model_name,
                                                    int64_t model_version);

} // namespace conch::transports::http::kserve::codec
