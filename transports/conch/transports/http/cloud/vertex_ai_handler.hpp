#pragma once

#include <memory>
#include <string>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/handler.hpp"
#include "conch/transports/http/kserve/kserve_handler.hpp"
#include "conch/transports/pattern/text_pattern.hpp"

namespace conch::transports::http::cloud {

/// What a Vertex AI handler is made from.
struct vertex_ai_handler_options {
  /// The KServe handler the Vertex AI routes are served by.
  std::shared_ptr<kserve::kserve_handler> kserve;
  /// The model the predict route runs.
  std::string default_model;
  /// The routes, as regular expressions (RE2 syntax) matched against the
  /// whole path (AIP_HEALTH_ROUTE, AIP_PREDICT_ROUTE).
  std::string health_route;
  std::string predict_route;
};

/// Vertex AI's prediction contract over the KServe routes, as Triton's
/// Vertex AI frontend serves it: GET on the health route answers readiness;
/// POST on the predict route runs the default model with a KServe body
/// (binary tensors announced by the content type
/// `application/vnd.vertex-ai-triton.binary+json;json-header-size=N`), or,
/// with an `X-Vertex-Ai-Triton-Redirect` header, the KServe endpoint it
/// names (`v2/models/m/infer`, `v2/models/m/ready`, `v2/repository/index`,
/// ...), or `metrics`: the server's Prometheus metrics on this port.
/// Anything else is 400 with an empty body.
class vertex_ai_handler final : public handler {
 public:
  /// INVALID_ARG, with Triton's texts, for a route that is missing or not a
  /// regular expression.
  static runtime::result<std::shared_ptr<vertex_ai_handler>> make(
    vertex_ai_handler_options options);

  void handle(request_ptr req, responder res) override;

 private:
  vertex_ai_handler(vertex_ai_handler_options options, pattern::text_pattern health,
                    pattern::text_pattern predict)
    : options_(std::move(options)), health_(std::move(health)), predict_(std::move(predict)) {}

  void redirect(request_ptr req, responder res, const std::string& target);

  vertex_ai_handler_options options_;
  pattern::text_pattern health_;
  pattern::text_pattern predict_;
};

/// The content-type prefix that announces a binary Vertex AI body.
inline constexpr const char* vertex_ai_binary_content_type =
  "application/vnd.vertex-ai-triton.binary+json;json-header-size=";

} // namespace conch::transports::http::cloud
