#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"
#include "conch/transports/http/kserve/trace_settings_body.hpp"

namespace conch::transports::http::kserve {

// GET and POST of the global trace settings, or of one model's (the trace
// extension). The model must be ready, as in Triton.
void serve_trace(route_call&& call) {
  auto& server = *call.settings.server;
  const auto& model = call.target.model;
  if (call.req->method == "GET") {
    auto settings = server.trace_settings(model);
    call.res.send(settings ? json_reply(trace_settings_json(*settings))
                           : error_reply(settings.error()));
    return;
  }
  auto update = parse_trace_settings_body(*call.req);
  if (!update) {
    call.res.send(error_reply(update.error()));
    return;
  }
  auto settings = server.update_trace_settings(model, *update);
  call.res.send(settings ? json_reply(trace_settings_json(*settings))
                         : error_reply(settings.error()));
}

} // namespace conch::transports::http::kserve
