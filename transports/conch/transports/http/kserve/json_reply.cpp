#include "conch/transports/http/kserve/json_reply.hpp"

#include "conch/transports/status_mapping.hpp"

namespace conch::transports::http::kserve {

response json_reply(std::string json) {
  return response::text(200, json, "application/json");
}

response empty_reply(int status) { return response{status}; }

response error_reply(const runtime::status& st) {
  return response::error(http_status(st.code()), st.message());
}

} // namespace conch::transports::http::kserve
