#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/repository_bodies.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

void serve_repository_load(route_call&& call) {
  if (!call.target.repository.empty()) {
    call.res.send(error_reply(
      runtime::unsupported("'repository_name' specification is not supported")));
    return;
  }
  auto request = parse_load_body(*call.req);
  if (!request) {
    call.res.send(error_reply(request.error()));
    return;
  }
  call.settings.server->load(
    call.target.model, std::move(*request),
    [res = std::make_shared<responder>(std::move(call.res)),
     ticket = std::move(call.ticket)](runtime::status st) {
      res->send(st.is_ok() ? empty_reply(200) : error_reply(st));
    });
}

} // namespace conch::transports::http::kserve
