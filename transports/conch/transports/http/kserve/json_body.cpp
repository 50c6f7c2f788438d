#include "conch/transports/http/kserve/json_body.hpp"

#include <string_view>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/kserve/codec/json_policy.hpp"

namespace conch::transports::http::kserve {

runtime::status parse_json_object(const request& req, rapidjson::Document& doc) {
  std::string_view text{reinterpret_cast<const char*>(req.body.data()), req.body.size()};
  CONCH_RUNTIME_RETURN_IF_ERROR(codec::parse_json(text, doc));
  if (!doc.IsObject())
    return runtime::invalid_argument("the request body must be a JSON object");
  return runtime::status::ok();
}

} // namespace conch::transports::http::kserve
