#include "conch/runtime/model_config/json.hpp"
#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

void serve_model_config(route_call&& call) {
  auto config = call.settings.server->model_config(call.target.model, call.target.version);
  if (!config) {
    call.res.send(error_reply(config.error()));
    return;
  }
  call.res.send(json_reply(runtime::model_config::to_json(**config)));
}

} // namespace conch::transports::http::kserve
