#include "conch/transports/http/cloud/sagemaker_load_body.hpp"

#include <rapidjson/document.h>

#include "conch/transports/http/kserve/json_body.hpp"

namespace conch::transports::http::cloud {

namespace {

// The body's string member `key`; INVALID_ARG when missing or not a string.
runtime::status read_member(const rapidjson::Document& doc, const char* key, std::string& out) {
  auto it = doc.FindMember(key);
  if (it == doc.MemberEnd() || !it->value.IsString() || it->value.GetStringLength() == 0)
    return runtime::invalid_argument(std::string{"the load request needs '"} + key
                                     + "', a non-empty string");
  out.assign(it->value.GetString(), it->value.GetStringLength());
  return runtime::status::ok();
}

} // namespace

runtime::result<sagemaker_load_body> parse_sagemaker_load_body(const request& req) {
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(kserve::parse_json_object(req, doc));
  sagemaker_load_body out;
  CONCH_RUNTIME_RETURN_IF_ERROR(read_member(doc, "model_name", out.model_name));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_member(doc, "url", out.url));
  return out;
}

} // namespace conch::transports::http::cloud
