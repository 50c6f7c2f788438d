#pragma once

#include <rapidjson/document.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/http/request.hpp"

namespace conch::transports::http::kserve {

/// True when `req` has no body.
inline bool body_empty(const request& req) noexcept { return req.body.size() == 0; }

/// Parses `req`'s body as one JSON object into `doc` (a copy; the body is
/// left as it was), under the server's JSON policy (codec/json_policy.hpp:
/// iterative, at most max_json_depth levels). INVALID_ARG naming the parse
/// error and its offset, or when the document is not an object.
runtime::status parse_json_object(const request& req, rapidjson::Document& doc);

} // namespace conch::transports::http::kserve
