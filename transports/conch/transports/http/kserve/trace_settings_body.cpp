#include "conch/transports/http/kserve/trace_settings_body.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/transports/http/kserve/json_body.hpp"

namespace conch::transports::http::kserve {

namespace {

using runtime::tracing::trace_value;

runtime::result<std::optional<trace_value>> to_value(std::string_view key,
                                                     const rapidjson::Value& v) {
  if (v.IsNull())
    return std::optional<trace_value>{trace_value{}};
  std::vector<std::string> values;
  if (key == "trace_level") {
    if (!v.IsArray())
      return runtime::internal_error("attempt to access JSON non-array as array");
    for (const auto& e : v.GetArray()) {
      if (!e.IsString())
        return runtime::internal_error("attempt to access JSON non-string as string");
      values.emplace_back(e.GetString(), e.GetStringLength());
    }
  } else {
    if (!v.IsString())
      return runtime::internal_error("attempt to access JSON non-string as string");
    values.emplace_back(v.GetString(), v.GetStringLength());
  }
  return std::optional<trace_value>{trace_value{std::move(values)}};
}

} // namespace

runtime::result<runtime::tracing::trace_settings_update>
parse_trace_settings_body(const request& req) {
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  return runtime::tracing::parse_trace_update(
    [&doc](std::string_view key) -> runtime::result<std::optional<trace_value>> {
      auto it = doc.FindMember(rapidjson::Value{rapidjson::StringRef(key.data(), key.size())});
      if (it == doc.MemberEnd())
        return std::optional<trace_value>{};
      // Triton reads only the keys it knows, with the type it expects.
      return to_value(key, it->value);
    });
}

std::string trace_settings_json(const runtime::tracing::trace_settings& settings) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w{out};
  w.StartObject();
  for (const auto& [key, values] : runtime::tracing::report(settings)) {
    w.Key(key.c_str(), static_cast<rapidjson::SizeType>(key.size()));
    if (key == "trace_level" || key == "resource") {
      w.StartArray();
      for (const auto& v : values)
        w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
      w.EndArray();
    } else {
      w.String(values.front().c_str(), static_cast<rapidjson::SizeType>(values.front().size()));
    }
  }
  w.EndObject();
  return out.GetString();
}

} // namespace conch::transports::http::kserve
