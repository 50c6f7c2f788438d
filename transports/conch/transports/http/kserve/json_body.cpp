#include "conch/transports/http/kserve/json_body.hpp"

#include <rapidjson/error/en.h>

namespace conch::transports::http::kserve {

runtime::status parse_json_object(const request& req, rapidjson::Document& doc) {
  const auto* text = reinterpret_cast<const char*>(req.body.data());
  doc.Parse(text == nullptr ? "" : text, req.body.size());
  if (doc.HasParseError())
    return runtime::invalid_argument(
      std::string{"failed to parse the request JSON buffer: "}
      + rapidjson::GetParseError_En(doc.GetParseError()) + " at "
      + std::to_string(doc.GetErrorOffset()));
  if (!doc.IsObject())
    return runtime::invalid_argument("the request body must be a JSON object");
  return runtime::status::ok();
}

} // namespace conch::transports::http::kserve
