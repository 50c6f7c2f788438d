#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "conch/transports/http/request.hpp"
#include "conch/transports/http/server_options.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http {

/// Removes the request's Content-Encoding (gzip or deflate) from its body,
/// bounding the decoded size by `max_size` and taking the decoded bytes from
/// `budget` (null: not counted). The Content-Encoding field stays, so routes
/// that refuse compressed requests can tell. Returns the error answer when
/// that fails: 501 with `Accept-Encoding: gzip, deflate` for an unknown
/// coding, 400 for a corrupt or oversized body, 503 past the budget.
std::optional<response> decode_request_body(
  request& req, size_t max_size,
  const std::shared_ptr<runtime::statistics::byte_budget>& budget = nullptr,
  const refusal_writer& writer = {});

} // namespace conch::transports::http
