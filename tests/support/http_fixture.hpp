#pragma once

#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "conch/actors/http_frontend.hpp"
#include "conch/transports/http/test/raw_client.hpp"
#include "support/server_fixture.hpp"

namespace conch::tests {

using transports::http::test::raw_client;
using transports::http::test::raw_response;

/// HTTP frontend options for tests: loopback, a free port, two loops.
inline actors::http_options test_http_options() {
  actors::http_options o;
  o.address = "127.0.0.1";
  o.port = 0;
  // The protocol tests exercise shared memory; the default (denied) has
  // tests of its own.
  o.allow_client_shm = true;
  o.thread_count = 2;
  return o;
}

/// Sends one request on a fresh connection and reads the answer; nullopt
/// when the connection or the read failed.
inline std::optional<raw_response> http_call(uint16_t port, const std::string& method,
                                             const std::string& target,
                                             const std::string& body = {},
                                             const std::string& headers = {}) {
  raw_client c{port};
  auto bytes = transports::http::test::make_request(method, target, body, headers);
  if (!c.connected() || !c.send(bytes))
    return std::nullopt;
  return c.read_response();
}

/// A server over the example repository's C++ models with an HTTP frontend
/// on a free port. Stops the frontend, then the server, at the end.
class http_fixture : public server_fixture {
 protected:
  void start_all(actors::server_options options = example_options(),
                 actors::http_options http = test_http_options()) {
    auto s = start(std::move(options));
    ASSERT_TRUE(s) << s.error().to_string();
    srv_ = *s;
    http_ = std::make_unique<actors::http_frontend>(*srv_, http);
    auto st = http_->start();
    ASSERT_TRUE(st) << st.to_string();
    port_ = http_->port();
    ASSERT_NE(port_, 0);
  }

  void TearDown() override { http_.reset(); }

  std::optional<raw_response> call(const std::string& method, const std::string& target,
                                   const std::string& body = {},
                                   const std::string& headers = {}) {
    return http_call(port_, method, target, body, headers);
  }

  std::optional<actors::server> srv_;
  std::unique_ptr<actors::http_frontend> http_;
  uint16_t port_ = 0;
};

} // namespace conch::tests
