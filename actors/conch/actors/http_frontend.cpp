#include "conch/actors/http_frontend.hpp"

#include <set>
#include <string>

#include "conch/actors/frontends/http_transport.hpp"
#include "conch/actors/frontends/server_gateway.hpp"
#include "conch/transports/http/cloud/sagemaker_handler.hpp"
#include "conch/transports/http/cloud/vertex_ai_handler.hpp"

namespace conch::actors {

namespace {

transports::http::server_options transport_options(const http_options& o) {
  transports::http::server_options t;
  static_cast<transports::http::listener_options&>(t) = o;
  return t;
}

runtime::status check(const http_options& o) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_port(o.port));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_thread_count(o.thread_count));
  if (o.max_inflight < 0)
    return runtime::invalid_argument("max_inflight must not be negative");
  return check(transport_options(o));
}

using transport_result = runtime::result<std::shared_ptr<listening_transport>>;

const char* kind_of(const http_options& o) {
  return o.sagemaker ? "SageMaker" : o.vertex_ai ? "Vertex AI" : "HTTP";
}

const char* service_of(const http_options& o) {
  return o.sagemaker ? "SageMakerService" : o.vertex_ai ? "VertexAIService" : "HTTPService";
}

// The model Vertex AI's predict route runs: the one named, which must be
// ready, or else the repository's one ready model (Triton's rule and texts).
runtime::result<std::string> vertex_ai_model(server& srv, const std::string& named) {
  auto index = srv.repository_index(true);
  if (!index)
    return index.error();
  std::set<std::string> ready;
  for (const auto& e : *index)
    ready.insert(e.name);
  if (named.empty()) {
    if (ready.size() != 1)
      return runtime::invalid_argument("Expect the model repository contains only a single "
                                       "model if default model is not specified");
    return *ready.begin();
  }
  if (ready.count(named) == 0)
    return runtime::invalid_argument("Expect the default model '" + named + "' is loaded");
  return named;
}

} // namespace

http_frontend::http_frontend(server& srv, http_options options)
  : listening_frontend(srv, service_of(options), kind_of(options)),
    options_(std::move(options)),
    input_(std::make_shared<runtime::statistics::byte_budget>(options_.policy.max_inflight_bytes)) {
  publish_edge(input_);
}

runtime::status http_frontend::start() {
  // Vertex AI's model is chosen once, here, on the caller's thread: the
  // transport maker also runs on the frontend's supervisor, for restarts.
  std::string vertex_model;
  if (options_.vertex_ai) {
    auto model = vertex_ai_model(srv_, options_.vertex_ai_default_model);
    if (!model)
      return model.error();
    vertex_model = std::move(*model);
  }
  return start_transport(options_.address, [this, vertex_model](uint16_t port)
                                             -> transport_result {
    CONCH_RUNTIME_RETURN_IF_ERROR(check(options_));
    transports::http::kserve::kserve_handler_options h;
    h.server = std::make_shared<server_gateway>(srv_);
    h.max_inflight = options_.max_inflight;
    h.stats = edge_;
    h.header_forward_pattern = options_.header_forward_pattern;
    for (const auto& g : options_.restricted_features)
      h.restricted_features.push_back({g.key, g.value, g.features});
    h.client_shm = options_.allow_client_shm ? transports::protocol::client_shm::allowed
                                             : transports::protocol::client_shm::denied;
    auto kserve = transports::http::kserve::kserve_handler::make(std::move(h));
    if (!kserve)
      return kserve.error();
    std::shared_ptr<transports::http::handler> handler = *kserve;
    if (options_.vertex_ai) {
      auto vertex = transports::http::cloud::vertex_ai_handler::make(
        {std::move(*kserve), vertex_model, options_.vertex_ai_health_route,
         options_.vertex_ai_predict_route});
      if (!vertex)
        return vertex.error();
      handler = std::move(*vertex);
    } else if (options_.sagemaker) {
      auto sagemaker = transports::http::cloud::sagemaker_handler::make(
        {std::move(*kserve), options_.sagemaker_default_model, options_.sagemaker_ping_mode,
         options_.sagemaker_inference_type, sagemaker_models_});
      if (!sagemaker)
        return sagemaker.error();
      handler = std::move(*sagemaker);
    }
    auto o = transport_options(options_);
    o.stop_timeout = transport_stop_budget(srv_.options().exit_timeout);
    if (port != 0)
      o.port = port;
    const char* name = kind_of(options_);
    return transport_result{
      std::make_shared<http_transport>(std::move(o), std::move(handler), edge_, input_, name)};
  });
}

} // namespace conch::actors
