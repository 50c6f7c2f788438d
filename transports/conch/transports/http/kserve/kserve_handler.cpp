#include "conch/transports/http/kserve/kserve_handler.hpp"

#include "conch/transports/forwarding/header_forwarding.hpp"
#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/router.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

namespace {

using serve_fn = void (*)(route_call&&);

serve_fn endpoint_function(endpoint e) {
  switch (e) {
    case endpoint::server_metadata: return serve_server_metadata;
    case endpoint::health_live:
    case endpoint::health_ready: return serve_health;
    case endpoint::model_metadata: return serve_model_metadata;
    case endpoint::model_ready: return serve_model_ready;
    case endpoint::model_config: return serve_model_config;
    case endpoint::model_infer: return serve_infer;
    case endpoint::model_statistics:
    case endpoint::all_statistics: return serve_statistics;
    case endpoint::model_trace_setting:
    case endpoint::trace_setting: return serve_trace;
    case endpoint::logging: return serve_logging;
    case endpoint::repository_index: return serve_repository_index;
    case endpoint::repository_load: return serve_repository_load;
    case endpoint::repository_unload: return serve_repository_unload;
    case endpoint::system_shared_memory: return serve_system_shared_memory;
    case endpoint::cuda_shared_memory: return serve_cuda_shared_memory;
    case endpoint::model_generate: return serve_generate;
    case endpoint::model_generate_stream: return serve_generate_stream;
  }
  return serve_server_metadata;
}

} // namespace

runtime::result<std::shared_ptr<kserve_handler>>
kserve_handler::make(kserve_handler_options options) {
  if (!options.server)
    return runtime::invalid_argument("a KServe handler needs a server");
  auto shared_memory = options.server->shared_memory();
  route_settings settings{std::move(options.server), std::nullopt, std::move(shared_memory),
                          options.client_shm};
  auto forward_pattern = forwarding::compile_forward_pattern(options.header_forward_pattern,
                                                             "header_forward_pattern");
  if (!forward_pattern)
    return forward_pattern.error();
  settings.header_forward_pattern = std::move(*forward_pattern);
  auto restricted = restrictions::make(options.restricted_features);
  if (!restricted)
    return restricted.error();
  return std::shared_ptr<kserve_handler>{
    new kserve_handler{std::move(settings), std::move(*restricted), options.max_inflight,
                       std::move(options.stats)}};
}

void kserve_handler::handle(request_ptr req, responder res) {
  auto target = match_route(req->segments);
  if (!target) {
    auto code = target.error().code() == runtime::errc::not_found ? 404 : 400;
    res.send(response::error(code, target.error().message()));
    return;
  }
  // As Triton does, a restricted group answers 403 before the method is
  // looked at.
  if (auto refused = refuse_restricted(feature_of(target->target), req->headers)) {
    res.send(std::move(*refused));
    return;
  }
  if (!method_allowed(*target, req->method)) {
    res.send(response::error(405, "Method Not Allowed"));
    return;
  }
  admission::ticket ticket;
  if (admitted(target->target)) {
    auto admitted = admit();
    if (!admitted) {
      res.send(error_reply(admitted.error()));
      return;
    }
    ticket = std::move(*admitted);
  }
  endpoint_function(target->target)(
    route_call{settings_, std::move(*target), std::move(req), std::move(res), std::move(ticket)});
}

std::optional<response> kserve_handler::refuse_restricted(feature f,
                                                          const header_map& headers) const {
  auto key = restricted_.missing_header(f, headers);
  if (!key)
    return std::nullopt;
  return response::error(403,
                         "This API is restricted, expecting header '" + std::string{*key} + "'");
}

runtime::result<admission::ticket> kserve_handler::admit() const {
  auto ticket = admission_.try_admit();
  if (!ticket)
    return runtime::unavailable("the server is busy: too many requests in flight");
  return ticket;
}

} // namespace conch::transports::http::kserve
