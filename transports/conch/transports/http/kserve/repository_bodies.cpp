#include "conch/transports/http/kserve/repository_bodies.hpp"

#include <string_view>

#include "conch/transports/http/kserve/base64.hpp"
#include "conch/transports/http/kserve/json_body.hpp"

namespace conch::transports::http::kserve {

namespace {

// The "parameters" object of `doc`, or nullptr when there is none.
runtime::result<const rapidjson::Value*> parameters_of(const rapidjson::Document& doc) {
  auto it = doc.FindMember("parameters");
  if (it == doc.MemberEnd())
    return static_cast<const rapidjson::Value*>(nullptr);
  if (!it->value.IsObject())
    return runtime::invalid_argument("'parameters' must be a JSON object");
  return &it->value;
}

runtime::status add_parameter(std::string_view key, const rapidjson::Value& value,
                              runtime::load_parameters& out) {
  if (key == "config") {
    if (!value.IsString())
      return runtime::invalid_argument("load parameter 'config' must be a string of JSON");
    out.config_json = std::string{value.GetString(), value.GetStringLength()};
  } else if (key.substr(0, 5) == "file:") {
    if (!value.IsString())
      return runtime::invalid_argument("load parameter '" + std::string{key}
                                       + "' must be a base64 string");
    auto bytes = base64_decode({value.GetString(), value.GetStringLength()});
    if (!bytes)
      return bytes.error().with_prefix("load parameter '" + std::string{key} + "': ");
    out.files.emplace_back(std::string{key}, std::move(*bytes));
  }
  return runtime::status::ok();
}

} // namespace

runtime::result<bool> parse_index_body(const request& req) {
  if (body_empty(req))
    return false;
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  auto it = doc.FindMember("ready");
  if (it == doc.MemberEnd())
    return false;
  if (!it->value.IsBool())
    return runtime::invalid_argument("'ready' must be a boolean");
  return it->value.GetBool();
}

runtime::result<runtime::load_parameters> parse_load_body(const request& req) {
  runtime::load_parameters out;
  if (body_empty(req))
    return out;
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  auto params = parameters_of(doc);
  if (!params)
    return params.error();
  if (*params == nullptr)
    return out;
  for (auto m = (*params)->MemberBegin(); m != (*params)->MemberEnd(); ++m) {
    std::string_view key{m->name.GetString(), m->name.GetStringLength()};
    CONCH_RUNTIME_RETURN_IF_ERROR(add_parameter(key, m->value, out));
  }
  return out;
}

runtime::result<bool> parse_unload_body(const request& req) {
  if (body_empty(req))
    return false;
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  auto params = parameters_of(doc);
  if (!params)
    return params.error();
  if (*params == nullptr)
    return false;
  auto it = (*params)->FindMember("unload_dependents");
  if (it == (*params)->MemberEnd())
    return false;
  if (!it->value.IsBool())
    return runtime::invalid_argument("'unload_dependents' must be a boolean");
  return it->value.GetBool();
}

} // namespace conch::transports::http::kserve
