#pragma once

#include <string>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/kserve/route.hpp"

namespace conch::transports::http::kserve {

/// Matches a request path, split into percent-decoded segments, to a KServe
/// endpoint, in the order Triton matches them (spec §1.1): /v2/models/stats
/// and /v2/logging first, then the model paths, server metadata and health,
/// shared memory, repository and trace. NOT_FOUND ("Not Found") for any
/// other path; INVALID_ARG for a version too large for int64. The method is
/// not looked at (see method_allowed).
runtime::result<route> match_route(const std::vector<std::string>& segments);

} // namespace conch::transports::http::kserve
