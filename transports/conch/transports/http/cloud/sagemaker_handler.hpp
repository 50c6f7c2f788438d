#pragma once

#include <memory>
#include <string>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/cloud/sagemaker_mme.hpp"
#include "conch/transports/http/cloud/sagemaker_models.hpp"
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
  /// "infer" (the default), "generate" or "generate_stream": the KServe
  /// endpoint /invocations is served by (SAGEMAKER_TRITON_INFERENCE_TYPE).
  std::string inference_type = "infer";
  /// The models loaded through the multi-model routes; never null.
  std::shared_ptr<sagemaker_models> models = std::make_shared<sagemaker_models>();
};

/// The SageMaker hosting contract over the KServe routes, as Triton's
/// SageMaker frontend serves it: GET /ping (200 while ready, 400 otherwise),
/// POST /invocations to the default model (its infer, generate or
/// generate_stream endpoint), and the multi-model routes under /models
/// (sagemaker_mme.hpp). A request body with binary
/// tensors is announced by its Content-Type,
/// `application/vnd.sagemaker-triton.binary+json;json-header-size=N`, and a
/// response with binary outputs is answered with that content type; the
/// KServe `Inference-Header-Content-Length` header is not used either way.
/// Any other path is 400 with an empty body.
class sagemaker_handler final : public handler {
 public:
  /// A handler; INVALID_ARG for an unknown ping mode or inference type,
  /// with Triton's text for the latter.
  static runtime::result<std::shared_ptr<sagemaker_handler>>
  make(sagemaker_handler_options options);

  void handle(request_ptr req, responder res) override;

 private:
  explicit sagemaker_handler(sagemaker_handler_options options)
    : options_(std::move(options)), mme_{options_.kserve, options_.models} {}

  sagemaker_handler_options options_;
  sagemaker_mme mme_;
};

/// The content-type prefix that announces a binary SageMaker body.
inline constexpr const char* binary_content_type =
  "application/vnd.sagemaker-triton.binary+json;json-header-size=";

/// Moves a KServe binary answer's header length into SageMaker's content
/// type, the one way SageMaker clients read it.
void to_sagemaker_answer(response& r);

} // namespace conch::transports::http::cloud
