#pragma once

#include <string>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/request.hpp"

namespace conch::transports::http::cloud {

/// The body of a SageMaker multi-model load, `POST /models`.
struct sagemaker_load_body {
  /// The model's name at SageMaker.
  std::string model_name;
  /// The folder the model (or its repository) is in.
  std::string url;
};

/// Reads `req`'s body as {"model_name": "...", "url": "..."} under the
/// server's JSON policy. INVALID_ARG for a body that is not a JSON object,
/// and "the load request needs '<key>', a non-empty string" for a member
/// missing, empty or not a string.
runtime::result<sagemaker_load_body> parse_sagemaker_load_body(const request& req);

} // namespace conch::transports::http::cloud
