#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

// A server built without tracing answers every trace-settings call, global
// or per model, GET or POST, with UNAVAILABLE (spec §1.14).
void serve_trace(route_call&& call) {
  call.res.send(error_reply(runtime::unavailable("the server does not support tracing")));
}

} // namespace conch::transports::http::kserve
