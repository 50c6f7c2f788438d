#include "conch/transports/http/kserve/log_settings_body.hpp"

#include <string_view>
#include <variant>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/json_body.hpp"
#include "conch/transports/protocol/log_settings_change.hpp"

namespace conch::transports::http::kserve {

namespace {

// A JSON value as the logging extension types it.
protocol::setting_value to_setting(const rapidjson::Value& v) {
  if (v.IsNull())
    return std::monostate{};
  if (v.IsBool())
    return v.GetBool();
  if (v.IsUint64())
    return v.GetUint64();
  if (v.IsString())
    return std::string{v.GetString(), v.GetStringLength()};
  return protocol::other_value{};
}

} // namespace

runtime::result<log_settings_update> parse_log_settings_body(const request& req) {
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  return protocol::parse_log_settings_change([&doc](std::string_view key) {
    auto it = doc.FindMember(rapidjson::Value{rapidjson::StringRef(key.data(), key.size())});
    return it == doc.MemberEnd() ? protocol::setting_value{} : to_setting(it->value);
  });
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
