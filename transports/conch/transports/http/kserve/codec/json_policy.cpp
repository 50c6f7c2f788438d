#include "conch/transports/http/kserve/codec/json_policy.hpp"

#include <string>

#include <rapidjson/error/en.h>

namespace conch::transports::http::kserve::codec {

runtime::status json_parse_error(rapidjson::ParseErrorCode code, size_t offset, bool too_deep) {
  std::string m = "failed to parse the request JSON buffer: ";
  if (too_deep)
    m += "arrays and objects nest deeper than the limit of " + std::to_string(max_json_depth)
         + " levels";
  else
    m += rapidjson::GetParseError_En(code);
  m += " at " + std::to_string(offset);
  return runtime::invalid_argument(std::move(m));
}

} // namespace conch::transports::http::kserve::codec
