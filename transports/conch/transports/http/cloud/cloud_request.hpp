#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/transports/http/request.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http::cloud {

/// Points `req` at the KServe route of `segments` ({"v2", "models", m,
/// "infer"}), path included.
void retarget(request& req, std::vector<std::string> segments);

/// Reads a cloud dialect's binary content type (`prefix` followed by the
/// JSON part's length, as SageMaker's and Vertex AI's Triton frontends take
/// it) into KServe's Inference-Header-Content-Length, which the client may
/// not set itself there. Returns Triton's 400 answer for a malformed one.
std::optional<response> announce_binary(request& req, std::string_view prefix);

} // namespace conch::transports::http::cloud
