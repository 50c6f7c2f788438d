#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

void serve_model_ready(route_call&& call) {
  // A model's own readiness check may answer seconds later, from a thread
  // of the server's: the responder goes with the callback.
  call.settings.server->model_ready(
    call.target.model, call.target.version,
    [res = std::make_shared<responder>(std::move(call.res)),
     ticket = std::move(call.ticket)](runtime::status st) {
      if (st.is_ok())
        res->send(empty_reply(200));
      else if (st.code() == runtime::errc::not_found)
        res->send(error_reply(st));
      else
        res->send(response::error(400, "Model version not ready"));
    });
}

} // namespace conch::transports::http::kserve
