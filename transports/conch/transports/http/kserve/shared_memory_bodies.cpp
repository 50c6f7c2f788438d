#include "conch/transports/http/kserve/shared_memory_bodies.hpp"

#include <limits>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/base64.hpp"
#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/http/kserve/json_body.hpp"

namespace conch::transports::http::kserve {

namespace {

// Reads required unsigned member `name` of `doc` into `out`.
runtime::status require_uint(const rapidjson::Value& doc, std::string_view name, uint64_t& out) {
  if (codec::find_member(doc, name) == nullptr)
    return codec::parse_error(name, "the field is missing");
  return codec::read_uint(doc, name, out);
}

// Reads `"raw_handle": {"b64": "<base64>"}` and decodes it into `out`.
runtime::status read_raw_handle(const rapidjson::Value& doc, std::string& out) {
  const auto* handle = codec::find_member(doc, "raw_handle");
  if (handle == nullptr)
    return codec::parse_error("raw_handle", "the field is missing");
  if (!handle->IsObject())
    return codec::parse_error("raw_handle", "expected an object with a base64 string 'b64'");
  const auto* text = codec::find_member(*handle, "b64");
  if (text == nullptr)
    return codec::parse_error("raw_handle.b64", "the field is missing");
  if (!text->IsString())
    return codec::parse_error("raw_handle.b64", "expected a string");
  auto decoded = base64_decode(codec::string_of(*text));
  if (!decoded)
    return codec::parse_error("raw_handle.b64", decoded.error().message());
  out = std::move(*decoded);
  return runtime::status::ok();
}

} // namespace

runtime::result<system_register_body> parse_system_register_body(const request& req) {
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  system_register_body out;
  CONCH_RUNTIME_RETURN_IF_ERROR(codec::require_string(doc, "key", out.key));
  CONCH_RUNTIME_RETURN_IF_ERROR(codec::read_uint(doc, "offset", out.offset));
  CONCH_RUNTIME_RETURN_IF_ERROR(require_uint(doc, "byte_size", out.byte_size));
  return out;
}

runtime::result<cuda_register_body> parse_cuda_register_body(const request& req) {
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  cuda_register_body out;
  CONCH_RUNTIME_RETURN_IF_ERROR(read_raw_handle(doc, out.raw_handle));
  uint64_t device_id = 0;
  CONCH_RUNTIME_RETURN_IF_ERROR(require_uint(doc, "device_id", device_id));
  if (device_id > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return codec::parse_error("device_id", "the value is too large");
  out.device_id = static_cast<int64_t>(device_id);
  CONCH_RUNTIME_RETURN_IF_ERROR(require_uint(doc, "byte_size", out.byte_size));
  return out;
}

std::string system_status_json(const std::vector<runtime::shm::region_registry::region_ptr>& regions) {
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

std::string
cuda_status_json(const std::vector<runtime::shm::region_registry::cuda_region_ptr>& regions) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w{out};
  w.StartArray();
  for (const auto& r : regions) {
    w.StartObject();
    w.Key("name");
    w.String(r->name());
    w.Key("device_id");
    w.Int64(r->device_id());
    w.Key("byte_size");
    w.Uint64(r->byte_size());
    w.EndObject();
  }
  w.EndArray();
  return out.GetString();
}

} // namespace conch::transports::http::kserve
