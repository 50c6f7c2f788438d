// A frontend whose transport fails while serving: its supervisor replaces
// the transport on the same port, within the server's restart budget, and
// past it reports the frontend failed while the server keeps serving.

#include <string>

#include <gtest/gtest.h>

#include "conch/actors/grpc_frontend.hpp"
#include "conch/actors/metrics_frontend.hpp"
#include "conch/runtime/statistics/frontend_restarts.hpp"
#include "support/grpc_fixture.hpp"
#include "support/http_fixture.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using runtime::statistics::frontend_restarts;

bool ready_over_http(uint16_t port) {
  auto r = http_call(port, "GET", "/v2/health/ready");
  return r && r->status == 200;
}

class frontend_restart : public server_fixture {};

TEST_F(frontend_restart, a_failed_http_transport_is_replaced_on_the_same_port) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  actors::http_frontend http{*srv, test_http_options()};
  ASSERT_TRUE(http.start());
  auto port = http.port();
  ASSERT_TRUE(ready_over_http(port));
  auto counted = frontend_restarts::count("HTTP");

  for (size_t round = 1; round <= 2; ++round) {
    http.inject_failure();
    ASSERT_TRUE(eventually([&] { return http.restarts() == round; })) << "round " << round;
    ASSERT_TRUE(eventually([&] { return ready_over_http(port); })) << "round " << round;
    EXPECT_EQ(http.port(), port);
    EXPECT_TRUE(http.failure().is_ok());
  }
  EXPECT_EQ(frontend_restarts::count("HTTP") - counted, 2);
  auto text = srv->metrics_text();
  EXPECT_NE(text.find("conch_frontend_restarts_total{frontend=\"HTTP\"}"), std::string::npos)
    << text;
  EXPECT_TRUE(http.stop());
  EXPECT_FALSE(raw_client{port}.connected());
}

TEST_F(frontend_restart, past_the_budget_the_frontend_fails_and_the_server_keeps_serving) {
  auto o = example_options();
  o.restart_budget = 1;
  auto srv = start(o);
  ASSERT_TRUE(srv) << srv.error().to_string();
  actors::http_frontend http{*srv, test_http_options()};
  ASSERT_TRUE(http.start());
  actors::metrics_frontend metrics{*srv, [] {
                                     actors::metrics_options m;
                                     m.address = "127.0.0.1";
                                     m.port = 0;
                                     return m;
                                   }()};
  ASSERT_TRUE(metrics.start());
  auto port = http.port();

  http.inject_failure();
  ASSERT_TRUE(eventually([&] { return http.restarts() == 1 && ready_over_http(port); }));
  http.inject_failure();
  ASSERT_TRUE(eventually([&] { return !http.failure().is_ok(); }));
  EXPECT_EQ(http.failure().code(), runtime::errc::unavailable);
  EXPECT_EQ(http.failure().message(),
            "HTTP server failed: an HTTP loop thread ended unexpectedly");
  EXPECT_EQ(http.port(), 0);
  EXPECT_FALSE(raw_client{port}.connected());
  auto again = http.start();
  EXPECT_EQ(again.code(), runtime::errc::unavailable);
  EXPECT_NE(again.message().find("HTTP server failed"), std::string::npos) << again.to_string();

  // The other frontend and the server go on.
  auto scrape = http_call(metrics.port(), "GET", "/metrics");
  ASSERT_TRUE(scrape);
  EXPECT_EQ(scrape->status, 200);
  EXPECT_TRUE(infer_sync(*srv, fp32_request("identity_fp32", "after")).error.is_ok());

  // Stopped, it may start again.
  EXPECT_TRUE(http.stop());
  ASSERT_TRUE(http.start());
  EXPECT_TRUE(http.failure().is_ok());
  EXPECT_TRUE(ready_over_http(http.port()));
}

TEST_F(frontend_restart, a_failed_metrics_transport_is_replaced_too) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  actors::metrics_options m;
  m.address = "127.0.0.1";
  m.port = 0;
  actors::metrics_frontend metrics{*srv, m};
  ASSERT_TRUE(metrics.start());
  auto port = metrics.port();
  metrics.inject_failure();
  ASSERT_TRUE(eventually([&] { return metrics.restarts() == 1; }));
  ASSERT_TRUE(eventually([&] {
    auto r = http_call(port, "GET", "/metrics");
    return r && r->status == 200;
  }));
}

TEST_F(frontend_restart, a_stop_while_the_transport_is_replaced_still_ends) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  actors::http_frontend http{*srv, test_http_options()};
  ASSERT_TRUE(http.start());
  auto port = http.port();
  http.inject_failure();
  EXPECT_TRUE(http.stop());
  EXPECT_FALSE(raw_client{port}.connected());
  EXPECT_TRUE(srv->stop());
}

} // namespace
} // namespace conch::tests
