#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"
#include "conch/transports/protocol/tracing.hpp"

namespace conch::transports::http::kserve {

// A server built without tracing answers every trace-settings call, global
// or per model, GET or POST, with UNAVAILABLE (spec §1.14).
void serve_trace(route_call&& call) {
  call.res.send(error_reply(protocol::tracing_unsupported()));
}

} // namespace conch::transports::http::kserve
