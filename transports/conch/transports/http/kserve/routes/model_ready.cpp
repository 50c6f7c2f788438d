#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

void serve_model_ready(route_call&& call) {
  auto st = call.settings.server->model_ready(call.target.model, call.target.version);
  if (st.is_ok())
    call.res.send(empty_reply(200));
  else if (st.code() == runtime::errc::not_found)
    call.res.send(error_reply(st));
  else
    call.res.send(response::error(400, "Model version not ready"));
}

} // namespace conch::transports::http::kserve
