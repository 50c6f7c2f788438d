#include "conch/transports/http/kserve/log_settings_body.hpp"

#include <cstdint>
#include <limits>
#include <optional>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/json_body.hpp"

namespace conch::transports::http::kserve {

namespace {

runtime::status read_bool(const rapidjson::Document& doc, const char* key,
                          std::optional<bool>& out) {
  auto it = doc.FindMember(key);
  if (it == doc.MemberEnd() || it->value.IsNull())
    return runtime::status::ok();
  if (!it->value.IsBool())
    return runtime::invalid_argument(std::string{"expect boolean for '"} + key + "'");
  out = it->value.GetBool();
  return runtime::status::ok();
}

runtime::status read_level(const rapidjson::Document& doc, std::optional<uint32_t>& out) {
  auto it = doc.FindMember("log_verbose_level");
  if (it == doc.MemberEnd() || it->value.IsNull())
    return runtime::status::ok();
  if (!it->value.IsUint())
    return runtime::invalid_argument("expect unsigned integer for 'log_verbose_level'");
  out = it->value.GetUint();
  return runtime::status::ok();
}

runtime::status read_format(const rapidjson::Document& doc, std::optional<std::string>& out) {
  auto it = doc.FindMember("log_format");
  if (it == doc.MemberEnd() || it->value.IsNull())
    return runtime::status::ok();
  if (!it->value.IsString())
    return runtime::invalid_argument("expect string for 'log_format'");
  out = std::string{it->value.GetString(), it->value.GetStringLength()};
  return runtime::status::ok();
}

} // namespace

runtime::result<log_settings_update> parse_log_settings_body(const request& req) {
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  if (auto it = doc.FindMember("log_file"); it != doc.MemberEnd() && !it->value.IsNull())
    return runtime::unsupported("log file location can not be updated through network protocol");
  log_settings_update u;
  CONCH_RUNTIME_RETURN_IF_ERROR(read_bool(doc, "log_info", u.log_info));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_bool(doc, "log_warning", u.log_warning));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_bool(doc, "log_error", u.log_error));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_level(doc, u.log_verbose_level));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_format(doc, u.log_format));
  return u;
}

std::string log_settings_json(const log_settings& s) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w{out};
  w.StartObject();
  w.Key("log_file");
  w.String(s.log_file);
  w.Key("log_info");
  w.Bool(s.log_info);
  w.Key("log_warning");
  w.Bool(s.log_warning);
  w.Key("log_error");
  w.Bool(s.log_error);
  w.Key("log_verbose_level");
  w.Uint(s.log_verbose_level);
  w.Key("log_format");
  w.String(s.log_format);
  w.EndObject();
  return out.GetString();
}

} // namespace conch::transports::http::kserve
