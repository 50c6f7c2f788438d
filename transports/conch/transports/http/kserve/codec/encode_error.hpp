#pragma once

#include "conch/runtime/status.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http::kserve::codec {

/// The KServe error response for `error` (spec §0.1, §0.2): the status that
/// status_mapping gives its code and the body {"error":"<message>"} as
/// application/json. An ok status, which is not an error, answers 500.
response encode_error(const runtime::status& error);

} // namespace conch::transports::http::kserve::codec
