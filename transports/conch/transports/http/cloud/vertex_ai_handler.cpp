#include "conch/transports/http/cloud/vertex_ai_handler.hpp"

#include "conch/transports/http/cloud/cloud_request.hpp"
#include "conch/transports/http/cloud/vertex_ai_redirect.hpp"

namespace conch::transports::http::cloud {

runtime::result<std::shared_ptr<vertex_ai_handler>>
vertex_ai_handler::make(vertex_ai_handler_options options) {
  if (options.predict_route.empty())
    return runtime::invalid_argument("API_PREDICT_ROUTE is not defined for Vertex AI endpoint");
  if (options.health_route.empty())
    return runtime::invalid_argument("AIP_HEALTH_ROUTE is not defined for Vertex AI endpoint");
  using pattern::letter_case;
  using pattern::text_pattern;
  auto health = text_pattern::compile(options.health_route, letter_case::sensitive);
  auto predict = text_pattern::compile(options.predict_route, letter_case::sensitive);
  for (const auto* compiled : {&health, &predict})
    if (!*compiled)
      return runtime::invalid_argument("a Vertex AI route is not a valid regular expression: "
                                       + compiled->error().message());
  return std::shared_ptr<vertex_ai_handler>{
    new vertex_ai_handler{std::move(options), std::move(*health), std::move(*predict)}};
}

void vertex_ai_handler::handle(request_ptr req, responder res) {
  if (health_.matches_all_of(req->path)) {
    if (req->method != "GET") {
      res.send(response::error(405, "Method Not Allowed"));
      return;
    }
    retarget(*req, {"v2", "health", "ready"});
    options_.kserve->handle(std::move(req), std::move(res));
    return;
  }
  if (!predict_.matches_all_of(req->path)) {
    res.send(response{400});
    return;
  }
  if (req->method != "POST") {
    res.send(response::error(405, "Method Not Allowed"));
    return;
  }
  if (const auto* target = req->headers.find("X-Vertex-Ai-Triton-Redirect")) {
    redirect(std::move(req), std::move(res), *target);
    return;
  }
  if (auto refused = announce_binary(*req, vertex_ai_binary_content_type)) {
    res.send(std::move(*refused));
    return;
  }
  retarget(*req, {"v2", "models", options_.default_model, "infer"});
  options_.kserve->handle(std::move(req), std::move(res));
}

void vertex_ai_handler::redirect(request_ptr req, responder res, const std::string& target) {
  auto path = target.substr(target.find_first_not_of('/') == std::string::npos
                              ? target.size()
                              : target.find_first_not_of('/'));
  if (path == "metrics") {
    // The server's metrics on this port, as Triton's Vertex AI frontend
    // serves them (a Vertex AI endpoint forwards nothing else). They are
    // the server's statistics, and that group's restriction guards them.
    if (auto refused = options_.kserve->refuse_restricted(kserve::feature::statistics,
                                                          req->headers)) {
      res.send(std::move(*refused));
      return;
    }
    res.send(response::text(200, options_.kserve->server()->metrics_text(),
                            "text/plain; charset=utf-8"));
    return;
  }
  if (auto endpoint = match_vertex_ai_redirect(path)) {
    bool get = endpoint->method == redirect_method::get;
    if (!get) {
      if (auto refused = announce_binary(*req, vertex_ai_binary_content_type)) {
        res.send(std::move(*refused));
        return;
      }
    }
    req->method = get ? "GET" : "POST";
    retarget(*req, std::move(endpoint->segments));
    options_.kserve->handle(std::move(req), std::move(res));
    return;
  }
  // Triton answers a redirect it does not know with 400 and no body.
  res.send(response{400});
}

} // namespace conch::transports::http::cloud
