#include "conch/transports/http/cloud/sagemaker_handler.hpp"

#include <string>
#include <string_view>

#include "conch/transports/http/cloud/cloud_request.hpp"

namespace conch::transports::http::cloud {

namespace {

constexpr std::string_view header_length = "Inference-Header-Content-Length";

// Moves a KServe binary answer's header length into SageMaker's content
// type: the one way SageMaker clients read it.
void to_sagemaker(response& r) {
  const auto* length = r.headers.find(header_length);
  if (length == nullptr)
    return;
  r.headers.set("Content-Type", std::string{binary_content_type} + *length);
  r.headers.erase(header_length);
}

} // namespace

void sagemaker_handler::handle(request_ptr req, responder res) {
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
    if (auto refused = announce_binary(*req, binary_content_type)) {
      res.send(std::move(*refused));
      return;
    }
    retarget(*req, {"v2", "models", options_.default_model, "infer"});
    res.set_transform(&to_sagemaker);
    options_.kserve->handle(std::move(req), std::move(res));
    return;
  }
  // Triton answers any other path with 400 and no body.
  res.send(response{400});
}

} // namespace conch::transports::http::cloud
