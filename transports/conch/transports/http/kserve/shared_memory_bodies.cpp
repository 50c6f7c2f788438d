#include "conch/transports/http/kserve/shared_memory_bodies.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/http/kserve/json_body.hpp"

namespace conch::transports::http::kserve {

runtime::result<system_register_body> parse_system_register_body(const request& req) {
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  system_register_body out;
  CONCH_RUNTIME_RETURN_IF_ERROR(codec::require_string(doc, "key", out.key));
  CONCH_RUNTIME_RETURN_IF_ERROR(codec::read_uint(doc, "offset", out.offset));
  if (codec::find_member(doc, "byte_size") == nullptr)
    return codec::parse_error("byte_size", "the field is missing");
  CONCH_RUNTIME_RETURN_IF_ERROR(codec::read_uint(doc, "byte_size", out.byte_size));
  return out;
}

std::string system_status_json(const std::vector<shm::region_registry::region_ptr>& regions) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w{out};
  w.StartArray();
  for (const auto& r : regions) {
    w.StartObject();
    w.Key("name");
    w.String(r->name());
    w.Key("key");
    w.String(r->key());
    w.Key("offset");
    w.Uint64(r->offset());
    w.Key("byte_size");
    w.Uint64(r->byte_size());
    w.EndObject();
  }
  w.EndArray();
  return out.GetString();
}

} // namespace conch::transports::http::kserve
