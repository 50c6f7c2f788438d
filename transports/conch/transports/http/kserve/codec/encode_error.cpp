#include "conch/transports/http/kserve/codec/encode_error.hpp"

#include "conch/transports/status_mapping.hpp"

namespace conch::transports::http::kserve::codec {

response encode_error(const runtime::status& error) {
  if (error.is_ok())
    return response::error(500, "an ok status was sent as an error");
  return response::error(http_status(error.code()), error.message());
}

} // namespace conch::transports::http::kserve::codec
