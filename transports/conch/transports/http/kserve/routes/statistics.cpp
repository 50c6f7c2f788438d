#include "conch/runtime/statistics/statistics_json.hpp"
#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

void serve_statistics(route_call&& call) {
  const auto& t = call.target;
  auto stats = t.target == endpoint::all_statistics
                 ? call.settings.server->model_statistics("", -1)
                 : call.settings.server->model_statistics(t.model, t.version);
  if (!stats) {
    call.res.send(error_reply(stats.error()));
    return;
  }
  call.res.send(json_reply(runtime::statistics::statistics_json(*stats)));
}

} // namespace conch::transports::http::kserve
