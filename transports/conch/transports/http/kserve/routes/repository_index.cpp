#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/repository_bodies.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

namespace {

std::string index_json(const std::vector<runtime::index_entry>& entries) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w{out};
  w.StartArray();
  for (const auto& e : entries) {
    w.StartObject();
    w.Key("name");
    w.String(e.name);
    if (!e.version.empty()) {
      w.Key("version");
      w.String(e.version);
    }
    w.Key("state");
    w.String(std::string{runtime::model_state_name(e.state)});
    if (!e.reason.empty()) {
      w.Key("reason");
      w.String(e.reason);
    }
    w.EndObject();
  }
  w.EndArray();
  return out.GetString();
}

} // namespace

void serve_repository_index(route_call&& call) {
  if (!call.target.repository.empty()) {
    call.res.send(error_reply(
      runtime::unsupported("'repository_name' specification is not supported")));
    return;
  }
  auto ready_only = parse_index_body(*call.req);
  if (!ready_only) {
    call.res.send(error_reply(ready_only.error()));
    return;
  }
  // The responder is move-only and callbacks are copyable: share it.
  auto res = std::make_shared<responder>(std::move(call.res));
  call.settings.server->repository_index(
    *ready_only, [res, ticket = std::move(call.ticket)](
                   runtime::result<std::vector<runtime::index_entry>> index) {
      res->send(index ? json_reply(index_json(*index)) : error_reply(index.error()));
    });
}

} // namespace conch::transports::http::kserve
