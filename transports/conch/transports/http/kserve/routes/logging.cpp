#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/log_settings_body.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

void serve_logging(route_call&& call) {
  auto& server = *call.settings.server;
  if (call.req->method == "GET") {
    call.res.send(json_reply(log_settings_json(server.logging())));
    return;
  }
  auto update = parse_log_settings_body(*call.req);
  if (!update) {
    call.res.send(error_reply(update.error()));
    return;
  }
  auto settings = server.update_logging(*update);
  call.res.send(settings ? json_reply(log_settings_json(*settings))
                         : error_reply(settings.error()));
}

} // namespace conch::transports::http::kserve
