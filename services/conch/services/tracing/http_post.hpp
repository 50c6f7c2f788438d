#pragma once

#include <chrono>
#include <string>

#include "conch/runtime/result.hpp"

namespace conch::services {

/// Where an HTTP POST goes: from "http://host:port/path", or without the
/// scheme ("localhost:4318/v1/traces", as Triton's settings allow).
struct http_endpoint {
  std::string host;
  std::string port = "80";
  std::string path = "/";
};

/// Reads `url`; UNSUPPORTED for a scheme other than http (no TLS here),
/// INVALID_ARG for a malformed one.
runtime::result<http_endpoint> parse_http_url(const std::string& url);

/// POSTs `body` to `to` over a fresh connection and reads the status line:
/// ok for a 2xx answer, UNAVAILABLE for anything else. Blocks the calling
/// thread for at most `timeout` in all, once the host name is resolved
/// (which getaddrinfo does without a timeout: use an address, or a name the
/// machine resolves locally, for a collector that must never hold a stop).
runtime::status http_post(const http_endpoint& to, const std::string& content_type,
                          const std::string& body, std::chrono::milliseconds timeout);

} // namespace conch::services
