#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

void serve_health(route_call&& call) {
  const auto& server = *call.settings.server;
  bool ok = call.target.target == endpoint::health_live ? server.live() : server.ready();
  call.res.send(empty_reply(ok ? 200 : 400));
}

} // namespace conch::transports::http::kserve
