#include "conch/transports/http/cloud/sagemaker_handler.hpp"

#include <string>
#include <string_view>

#include "conch/transports/http/cloud/cloud_request.hpp"

namespace conch::transports::http::cloud {

namespace {

constexpr std::string_view header_length = "Inference-Header-Content-Length";

} // namespace

void to_sagemaker_answer(response& r) {
  const auto* length = r.headers.find(header_length);
  if (length == nullptr)
    return;
  r.headers.set("Content-Type", std::string{binary_content_type} + *length);
  r.headers.erase(header_length);
}

runtime::result<std::shared_ptr<sagemaker_handler>>
sagemaker_handler::make(sagemaker_handler_options options) {
  if (!options.kserve)
    return runtime::invalid_argument("a SageMaker handler needs a KServe handler");
  if (options.ping_mode != "ready" && options.ping_mode != "live")
    return runtime::invalid_argument("the SageMaker ping mode is 'ready' or 'live', not '"
                                     + options.ping_mode + "'");
  const auto& type = options.inference_type;
  if (type != "infer" && type != "generate" && type != "generate_stream")
    return runtime::invalid_argument("Server has invalid inference type '" + type
                                     + "'. Must be one of: infer, generate, generate_stream.");
  if (!options.models)
    options.models = std::make_shared<sagemaker_models>();
  return std::shared_ptr<sagemaker_handler>{new sagemaker_handler{std::move(options)}};
}

void sagemaker_handler::handle(request_ptr req, responder res) {
  // As on the KServe routes, a restricted group answers 403 before
  // anything else is looked at: /ping is health, /invocations inference.
  if (req->path == "/ping" || req->path == "/invocations") {
    auto group = req->path == "/ping" ? kserve::feature::health : kserve::feature::inference;
    if (auto refused = options_.kserve->refuse_restricted(group, req->headers)) {
      res.send(std::move(*refused));
      return;
    }
  }
  if (req->path == "/ping") {
    if (req->method != "GET") {
      res.send(response::error(405, "Method Not Allowed"));
      return;
    }
    retarget(*req, {"v2", "health", options_.ping_mode == "live" ? "live" : "ready"});
    options_.kserve->handle(std::move(req), std::move(res));
    return;
  }
  if (req->path == "/invocations") {
    if (req->method != "POST") {
      res.send(response::error(405, "Method Not Allowed"));
      return;
    }
    if (options_.inference_type != "infer") {
      retarget(*req, {"v2", "models", options_.default_model, options_.inference_type});
      options_.kserve->handle(std::move(req), std::move(res));
      return;
    }
    if (auto refused = announce_binary(*req, binary_content_type)) {
      res.send(std::move(*refused));
      return;
    }
    retarget(*req, {"v2", "models", options_.default_model, "infer"});
    res.set_transform(&to_sagemaker_answer);
    options_.kserve->handle(std::move(req), std::move(res));
    return;
  }
  if (req->path.rfind("/models", 0) == 0) {
    serve_models(mme_, std::move(req), std::move(res));
    return;
  }
  // Triton answers any other path with 400 and no body.
  res.send(response{400});
}

} // namespace conch::transports::http::cloud
