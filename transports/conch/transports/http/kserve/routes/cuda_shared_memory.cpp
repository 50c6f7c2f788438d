#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"
#include "conch/transports/shm/cuda_regions.hpp"

namespace conch::transports::http::kserve {

// No CUDA regions: answered as every frontend answers (shm/cuda_regions.hpp).
void serve_cuda_shared_memory(route_call&& call) {
  const auto& t = call.target;
  if (t.action == "status") {
    auto st = shm::cuda_status(t.region);
    call.res.send(st.is_ok() ? json_reply("[]") : error_reply(st));
  } else if (t.action == "register") {
    call.res.send(error_reply(shm::register_cuda(t.region)));
  } else {
    call.res.send(empty_reply(200));
  }
}

} // namespace conch::transports::http::kserve
