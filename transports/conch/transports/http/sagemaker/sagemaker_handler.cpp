#include "conch/transports/http/sagemaker/sagemaker_handler.hpp"

#include <cstdlib>
#include <string>
#include <string_view>

namespace conch::transports::http::sagemaker {

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

// Points `req` at KServe's route for `segments`.
void retarget(request& req, std::vector<std::string> segments) {
  std::string path;
  for (const auto& s : segments)
    path += "/" + s;
  req.path = std::move(path);
  req.segments = std::move(segments);
}

// Reads SageMaker's content type into KServe's header length; the client's
// own Inference-Header-Content-Length is not SageMaker's and is dropped.
// Returns the 400 answer for a malformed one.
std::optional<response> announce_binary(request& req) {
  req.headers.erase(header_length);
  const auto* type = req.headers.find("Content-Type");
  if (type == nullptr)
    return std::nullopt;
  std::string_view prefix{binary_content_type};
  auto at = type->find(prefix);
  if (at == std::string::npos)
    return std::nullopt;
  if (at != 0)
    return response::error(400, "expect MIME type for binary data starts with '"
                                  + std::string{prefix} + "', got: " + *type);
  auto suffix = type->substr(prefix.size());
  // atoi, as Triton reads it: what is not a number is 0 (a raw binary body).
  long long size = std::atoll(suffix.c_str());
  if (size < 0 || static_cast<unsigned long long>(size) > req.body.size())
    return response::error(400, "inference header size should be in range (0, "
                                  + std::to_string(req.body.size()) + "), got: " + suffix);
  req.headers.set(header_length, std::to_string(size));
  return std::nullopt;
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
    if (auto refused = announce_binary(*req)) {
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

} // namespace conch::transports::http::sagemaker
