#pragma once

#include <cstddef>
#include <optional>

#include "conch/transports/http/request.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http {

/// Removes the request's Content-Encoding (gzip or deflate) from its body,
/// bounding the decoded size by `max_size`. The Content-Encoding field stays,
/// so routes that refuse compressed requests can tell. Returns the error answer when that fails: 501 with
/// `Accept-Encoding: gzip, deflate` for an unknown coding, 400 for a corrupt
/// or oversized body.
std::optional<response> decode_request_body(request& req, size_t max_size);

} // namespace conch::transports::http
