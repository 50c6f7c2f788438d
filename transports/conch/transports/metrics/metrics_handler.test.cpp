// The metrics endpoint over the HTTP transport, checked with raw bytes on a
// socket: the exposition on GET /metrics and /metrics/, 405 and 404 else.
#include <atomic>
#include <string>

#include <gtest/gtest.h>

#include "conch/transports/http/test/raw_client.hpp"
#include "conch/transports/http/test/test_handler.hpp"
#include "conch/transports/metrics/metrics_handler.hpp"

namespace conch::transports::metrics {
namespace {

using http::test::field;
using http::test::make_request;
using http::test::raw_client;

class metrics_handler_test : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_TRUE(http::test::stop_and_wait(*server_)); }

  std::optional<http::test::raw_response> call(const std::string& method,
                                               const std::string& target) {
    raw_client c{server_->bound_port()};
    if (!c.connected() || !c.send(make_request(method, target)))
      return std::nullopt;
    return c.read_response();
  }

  std::atomic<int> scrapes_{0};
  std::shared_ptr<metrics_handler> handler_ = std::make_shared<metrics_handler>([this] {
    return "# HELP x An example.\n# TYPE x counter\nx " + std::to_string(++scrapes_) + "\n";
  });
  std::unique_ptr<http::server> server_ = http::test::start_server(handler_);
};

TEST_F(metrics_handler_test, get_metrics_returns_the_fresh_exposition) {
  for (int i = 1; i <= 2; ++i) {
    auto r = call("GET", "/metrics");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(field(*r, "Content-Type"), "text/plain; charset=utf-8");
    EXPECT_EQ(r->body, "# HELP x An example.\n# TYPE x counter\nx " + std::to_string(i) + "\n");
  }
}

TEST_F(metrics_handler_test, trailing_slash_and_query_string_are_served) {
  for (auto target : {"/metrics/", "/metrics?name=x"}) {
    auto r = call("GET", target);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 200) << target;
    EXPECT_NE(r->body.find("x "), std::string::npos) << target;
  }
}

TEST_F(metrics_handler_test, other_methods_are_405) {
  for (auto method : {"POST", "PUT", "DELETE"}) {
    raw_client c{server_->bound_port()};
    ASSERT_TRUE(c.send(make_request(method, "/metrics")));
    auto r = c.read_response();
    ASSERT_TRUE(r) << method;
    EXPECT_EQ(r->status, 405) << method;
    EXPECT_EQ(field(*r, "Allow"), "GET") << method;
  }
  EXPECT_EQ(scrapes_.load(), 0);
}

TEST_F(metrics_handler_test, other_paths_are_404) {
  for (auto target : {"/", "/metrics/x", "/metricsx", "/v2/health/live"}) {
    auto r = call("GET", target);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 404) << target;
  }
  EXPECT_EQ(scrapes_.load(), 0);
}

TEST_F(metrics_handler_test, keep_alive_serves_several_scrapes_on_one_connection) {
  raw_client c{server_->bound_port()};
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(c.send(make_request("GET", "/metrics")));
    auto r = c.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
  EXPECT_EQ(scrapes_.load(), 3);
}

} // namespace
} // namespace conch::transports::metrics
