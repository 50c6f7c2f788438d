#pragma once

#include <string>

#include "conch/runtime/status.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http::kserve {

/// A 200 answer whose body is the JSON text `json`, as application/json.
response json_reply(std::string json);

/// An empty answer with `status` and no Content-Type (health, ready, load).
response empty_reply(int status);

/// The answer to a failed operation: the HTTP status of its error class
/// (status_mapping) and the body `{"error":"<message>"}`.
response error_reply(const runtime::status& st);

} // namespace conch::transports::http::kserve
