#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

// This server registers no CUDA regions (TODO(issue 4): CUDA IPC regions on
// a CUDA build with a GPU). Status lists none, unregistering succeeds (as
// perf_analyzer expects of any server), and registering is refused.
void serve_cuda_shared_memory(route_call&& call) {
  const auto& t = call.target;
  if (t.action == "status") {
    if (t.region.empty())
      call.res.send(json_reply("[]"));
    else
      call.res.send(error_reply(runtime::not_found(
        "Unable to find cuda shared memory region: '" + t.region + "'")));
  } else if (t.action == "register") {
    call.res.send(error_reply(runtime::invalid_argument(
      "failed to register CUDA shared memory region: '" + t.region + "', GPUs not supported")));
  } else {
    call.res.send(empty_reply(200));
  }
}

} // namespace conch::transports::http::kserve
