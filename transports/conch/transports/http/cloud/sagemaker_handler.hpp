#pragma once

#include <memory>
#include <string>

#include "conch/transports/http/handler.hpp"
#include "conch/transports/http/kserve/kserve_handler.hpp"

namespace conch::transports::http::cloud {

/// What a SageMaker handler is made from.
struct sagemaker_handler_options {
  /// The KServe handler the SageMaker routes are served by, so admission,
  /// restrictions, statistics and tracing apply as to any KServe request.
  std::shared_ptr<kserve::kserve_handler> kserve;
  /// The model /invocations runs (SAGEMAKER_TRITON_DEFAULT_MODEL_NAME).
  std::string default_model = "unspecified_SAGEMAKER_TRITON_DEFAULT_MODEL_NAME";
  /// "ready" (the default) or "live": what GET /ping answers 200 for
  /// (SAGEMAKER_TRITON_PING_MODE).
  std::string ping_mode = "ready";
};

/// The SageMaker hosting contract over the KServe routes, as Triton's
/// SageMaker frontend serves it: GET /ping (200 while ready, 400 otherwise),
/// POST /invocations to the default model. A request body with binary
/// tensors is announced by its Content-Type,
/// `application/vnd.sagemaker-triton.binary+json;json-header-size=N`, and a
/// response with binary outputs is answered with that content type; the
/// KServe `Inference-Header-Content-Length` header is not used either way.
/// Any other path is 400 with an empty body.
class sagemaker_handler final : public handler {
 public:
  explicit sagemaker_handler(sagemaker_handler_options options)
    : options_(std::move(options)) {}

  void handle(request_ptr req, responder res) override;

 private:
  sagemaker_handler_options options_;
};

/// The content-type prefix that announces a binary SageMaker body.
inline constexpr const char* binary_content_type =
  "application/vnd.sagemaker-triton.binary+json;json-header-size=";

} // namespace conch::transports::http::cloud
