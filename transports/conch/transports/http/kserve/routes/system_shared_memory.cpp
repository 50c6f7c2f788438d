#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"
#include "conch/transports/http/kserve/shared_memory_bodies.hpp"

namespace conch::transports::http::kserve {

namespace {

response register_region(runtime::shm::region_registry& registry, const route_call& call) {
  if (call.target.region.empty())
    return error_reply(
      runtime::invalid_argument("a shared memory region name is required to register"));
  auto body = parse_system_register_body(*call.req);
  if (!body)
    return error_reply(body.error());
  auto st = registry.register_system(call.target.region, std::move(body->key), body->offset,
                                     body->byte_size);
  return st.is_ok() ? empty_reply(200) : error_reply(st);
}

} // namespace

void serve_system_shared_memory(route_call&& call) {
  auto& registry = *call.settings.shared_memory;
  const auto& action = call.target.action;
  if (action == "status") {
    auto regions = registry.system_status(call.target.region);
    call.res.send(regions ? json_reply(system_status_json(*regions))
                          : error_reply(regions.error()));
  } else if (call.settings.client_shm == protocol::client_shm::denied) {
    // Status stays open, as Triton's; changes need --allow-client-shm.
    call.res.send(error_reply(protocol::client_shm_disabled()));
  } else if (action == "register") {
    call.res.send(register_region(registry, call));
  } else {
    registry.unregister_system(call.target.region);
    call.res.send(empty_reply(200));
  }
}

} // namespace conch::transports::http::kserve
