#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

// The place of the endpoint groups still to come: system and CUDA shared
// memory, generate and generate_stream (TODO issue 4). Until then they are
// routed, so that methods are checked, and answered UNSUPPORTED.
void serve_not_implemented(route_call&& call) {
  const char* what = "this endpoint";
  switch (call.target.target) {
    case endpoint::system_shared_memory: what = "system shared memory"; break;
    case endpoint::cuda_shared_memory: what = "CUDA shared memory"; break;
    case endpoint::model_generate: what = "generate"; break;
    case endpoint::model_generate_stream: what = "generate_stream"; break;
    default: break;
  }
  call.res.send(
    error_reply(runtime::unsupported(std::string{what} + " is not supported by this server yet")));
}

} // namespace conch::transports::http::kserve
