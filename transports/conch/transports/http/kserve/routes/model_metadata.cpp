#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/json_reply.hpp"
#include "conch/transports/http/kserve/routes/routes.hpp"

namespace conch::transports::http::kserve {

namespace {

using writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_tensors(writer& w, const char* key, const std::vector<runtime::tensor_metadata>& tensors) {
  w.Key(key);
  w.StartArray();
  for (const auto& t : tensors) {
    w.StartObject();
    w.Key("name");
    w.String(t.name);
    w.Key("datatype");
    w.String(t.datatype);
    w.Key("shape");
    w.StartArray();
    for (auto d : t.shape)
      w.Int64(d);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

} // namespace

void serve_model_metadata(route_call&& call) {
  auto info = call.settings.server->model_metadata(call.target.model, call.target.version);
  if (!info) {
    call.res.send(error_reply(info.error()));
    return;
  }
  rapidjson::StringBuffer out;
  writer w{out};
  w.StartObject();
  w.Key("name");
  w.String(info->name);
  w.Key("versions");
  w.StartArray();
  for (const auto& v : info->versions)
    w.String(v);
  w.EndArray();
  w.Key("platform");
  w.String(info->platform);
  write_tensors(w, "inputs", info->inputs);
  write_tensors(w, "outputs", info->outputs);
  w.EndObject();
  call.res.send(json_reply(out.GetString()));
}

} // namespace conch::transports::http::kserve
