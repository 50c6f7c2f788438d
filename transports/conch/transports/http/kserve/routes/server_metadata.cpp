#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

void serve_server_metadata(route_call&& call) {
  auto info = call.settings.server->server_metadata();
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w{out};
  w.StartObject();
  w.Key("name");
  w.String(info.name);
  w.Key("version");
  w.String(info.version);
  w.Key("extensions");
  w.StartArray();
  for (const auto& e : info.extensions)
    w.String(e);
  w.EndArray();
  w.EndObject();
  call.res.send(json_reply(out.GetString()));
}

} // namespace conch::transports::http::kserve
