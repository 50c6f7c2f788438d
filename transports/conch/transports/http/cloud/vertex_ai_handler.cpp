#include "conch/transports/http/cloud/vertex_ai_handler.hpp"

#include <sstream>
#include <vector>

#include "conch/transports/http/cloud/cloud_request.hpp"

namespace conch::transports::http::cloud {

namespace {

// The KServe endpoints a redirect may name, and whether KServe serves
// them with GET (the rest stay POST), as Triton's Vertex AI frontend maps
// them.
struct redirect_rule {
  std::regex pattern;
  bool get;
};

const std::vector<redirect_rule>& redirect_rules() {
  static const std::vector<redirect_rule> rules = [] {
    std::vector<redirect_rule> r;
    auto add = [&r](const char* pattern, bool get) { r.push_back({std::regex{pattern}, get}); };
    add(R"(v2(/health/(live|ready))?)", true);
    add(R"(v2/models/stats)", true);
    add(R"(v2/models/[^/]+(/versions/[0-9]+)?(/(ready|config|stats))?)", true);
    add(R"(v2/models/[^/]+(/versions/[0-9]+)?/infer)", false);
    add(R"(v2/(systemsharedmemory|cudasharedmemory)(/region/[^/]+)?/status)", true);
    add(R"(v2/(systemsharedmemory|cudasharedmemory)(/region/[^/]+)?/(register|unregister))",
        false);
    add(R"(v2/repository(/[^/]+)?/(index|models/[^/]+/(load|unload)))", false);
    return r;
  }();
  return rules;
}

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream in{path};
  std::string part;
  while (std::getline(in, part, '/'))
    if (!part.empty())
      out.push_back(part);
  return out;
}

} // namespace

runtime::result<std::shared_ptr<vertex_ai_handler>>
vertex_ai_handler::make(vertex_ai_handler_options options) {
  if (options.predict_route.empty())
    return runtime::invalid_argument("API_PREDICT_ROUTE is not defined for Vertex AI endpoint");
  if (options.health_route.empty())
    return runtime::invalid_argument("AIP_HEALTH_ROUTE is not defined for Vertex AI endpoint");
  try {
    std::regex health{options.health_route};
    std::regex predict{options.predict_route};
    return std::shared_ptr<vertex_ai_handler>{
      new vertex_ai_handler{std::move(options), std::move(health), std::move(predict)}};
  } catch (const std::regex_error& e) {
    return runtime::invalid_argument(std::string{"a Vertex AI route is not a valid regular "
                                                 "expression: "}
                                     + e.what());
  }
}

void vertex_ai_handler::handle(request_ptr req, responder res) {
  if (std::regex_match(req->path, health_)) {
    if (req->method != "GET") {
      res.send(response::error(405, "Method Not Allowed"));
      return;
    }
    retarget(*req, {"v2", "health", "ready"});
    options_.kserve->handle(std::move(req), std::move(res));
    return;
  }
  if (!std::regex_match(req->path, predict_)) {
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
    // serves them (a Vertex AI endpoint forwards nothing else).
    res.send(response::text(200, options_.kserve->server()->metrics_text(),
                            "text/plain; charset=utf-8"));
    return;
  }
  for (const auto& rule : redirect_rules()) {
    if (!std::regex_match(path, rule.pattern))
      continue;
    if (!rule.get) {
      if (auto refused = announce_binary(*req, vertex_ai_binary_content_type)) {
        res.send(std::move(*refused));
        return;
      }
    }
    req->method = rule.get ? "GET" : "POST";
    retarget(*req, split(path));
    options_.kserve->handle(std::move(req), std::move(res));
    return;
  }
  // Triton answers a redirect it does not know with 400 and no body.
  res.send(response{400});
}

} // namespace conch::transports::http::cloud
