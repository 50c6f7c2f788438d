#pragma once

#include "conch/runtime/parameter.hpp"
#include "conch/runtime/status.hpp"
#include "conch/transports/forwarding/header_forwarding.hpp"
#include "conch/transports/http/header_map.hpp"

namespace conch::transports::http::kserve {

/// Adds each header of `headers` whose name `pattern` finds a match in as a
/// string parameter named like the header (spec §1.11). INVALID_ARG
/// ("Header '<h>' is reserved") when such a name is a reserved parameter,
/// or when `out` would pass protocol::max_request_parameters.
runtime::status forward_headers(const header_map& headers, const pattern::text_pattern& pattern,
                                runtime::parameter_list& out);

/// True for the request parameter names the protocol reserves (spec §0.4).
using forwarding::reserved_parameter;

} // namespace conch::transports::http::kserve
