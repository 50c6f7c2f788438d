#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conch/transports/http/request.hpp"

namespace conch::transports::http::kserve::test {

/// A POST request with `body`, kept for the rest of the test run (requests
/// are not copyable, and the body parsers take them by reference).
inline const request& with_body(const std::string& body) {
  static std::vector<request_ptr> kept;
  auto r = std::make_shared<request>();
  r->method = "POST";
  r->body = runtime::buffer::copy_of(body.data(), body.size());
  kept.push_back(r);
  return *r;
}

} // namespace conch::transports::http::kserve::test
