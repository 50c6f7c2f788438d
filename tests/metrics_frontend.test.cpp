// The metrics frontend over a real socket: the exposition of a loaded
// model, counters that move as soon as an inference completes, 405 and 404,
// the lifecycle (start twice, stop twice, restart, a port in use) and a
// server stop taking the frontend down with it.

#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "conch/actors/metrics_frontend.hpp"
#include "conch/runtime/statistics/custom_metric.hpp"
#include "conch/transports/http/test/raw_client.hpp"
#include "support/metrics_text.hpp"
#include "support/server_fixture.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using runtime::errc;
using transports::http::test::field;
using transports::http::test::make_request;
using transports::http::test::raw_client;
using transports::http::test::raw_response;

constexpr const char* identity_labels = R"(model="identity_fp32",version="1")";

actors::metrics_options test_metrics_options() {
  actors::metrics_options o;
  o.address = "127.0.0.1";
  o.port = 0;
  o.thread_count = 1;
  return o;
}

std::optional<raw_response> scrape(uint16_t port, const std::string& method = "GET",
                                   const std::string& target = "/metrics") {
  raw_client c{port};
  if (!c.connected() || !c.send(make_request(method, target)))
    return std::nullopt;
  return c.read_response();
}

class metrics_frontend_test : public server_fixture {
 protected:
  void SetUp() override {
    auto s = start(example_options());
    ASSERT_TRUE(s) << s.error().to_string();
    srv_ = *s;
    metrics_ = std::make_unique<actors::metrics_frontend>(*srv_, test_metrics_options());
    auto st = metrics_->start();
    ASSERT_TRUE(st) << st.to_string();
    port_ = metrics_->port();
    ASSERT_NE(port_, 0);
  }

  void TearDown() override { metrics_.reset(); }

  /// The value of `family` for identity_fp32 version 1 on a fresh scrape.
  std::optional<double> identity_value(const std::string& family) {
    auto r = scrape(port_);
    if (!r || r->status != 200)
      return std::nullopt;
    return metric_value(r->body, family, identity_labels);
  }

  std::optional<actors::server> srv_;
  std::unique_ptr<actors::metrics_frontend> metrics_;
  uint16_t port_ = 0;
};

TEST_F(metrics_frontend_test, scrape_shows_the_loaded_model_at_zero) {
  auto r = scrape(port_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(field(*r, "Content-Type"), "text/plain; charset=utf-8");
  EXPECT_NE(r->body.find("# TYPE nv_inference_count counter"), std::string::npos) << r->body;
  EXPECT_EQ(metric_value(r->body, "nv_inference_count", identity_labels), 0.0) << r->body;
  EXPECT_EQ(metric_value(r->body, "nv_inference_request_success", identity_labels), 0.0);
  // The same text the server itself renders, but for the gauges of the
  // scrape's own connection (open during the scrape, closed after).
  auto without_own_connection = [](const std::string& text) {
    std::string out;
    size_t at = 0;
    while (at < text.size()) {
      auto end = text.find('\n', at);
      end = end == std::string::npos ? text.size() : end + 1;
      auto line = text.substr(at, end - at);
      if (line.rfind("conch_connections_open{", 0) != 0
          && line.rfind("conch_response_bytes_buffered{", 0) != 0)
        out += line;
      at = end;
    }
    return out;
  };
  EXPECT_EQ(without_own_connection(r->body), without_own_connection(srv_->metrics_text()));
}

TEST_F(metrics_frontend_test, counters_move_after_one_inference_without_waiting) {
  ASSERT_EQ(identity_value("nv_inference_count"), 0.0);
  auto resp = infer_sync(*srv_, fp32_request("identity_fp32", "one"));
  ASSERT_TRUE(resp.error.is_ok()) << resp.error.to_string();
  // The counters move when the request completes, right after its final
  // response was delivered: no metrics interval is involved, but the scrape
  // may race that last step, so it is repeated until the deadline.
  EXPECT_TRUE(eventually([&] { return identity_value("nv_inference_count") == 1.0; }));
  EXPECT_TRUE(eventually([&] { return identity_value("nv_inference_request_success") == 1.0; }));
  EXPECT_EQ(identity_value("nv_inference_exec_count"), 1.0);
}

TEST_F(metrics_frontend_test, custom_metrics_are_scraped_until_dropped) {
  using runtime::statistics::custom_metric;
  using runtime::statistics::metric_kind;
  auto family = srv_->make_metric_family(metric_kind::gauge, "app_temperature", "Degrees");
  ASSERT_TRUE(family) << family.error().to_string();
  auto metric = custom_metric::make(*family, {{"room", "lab"}});
  ASSERT_TRUE(metric) << metric.error().to_string();
  ASSERT_TRUE((*metric)->set_value(21.5).is_ok());
  auto r = scrape(port_);
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("# HELP app_temperature Degrees\n# TYPE app_temperature gauge\n"),
            std::string::npos)
    << r->body;
  EXPECT_EQ(metric_value(r->body, "app_temperature", R"(room="lab")"), 21.5) << r->body;
  EXPECT_EQ(srv_->make_metric_family(metric_kind::counter, "nv_inference_count", "").error().code(),
            errc::invalid_argument);
  metric = runtime::invalid_argument("dropped");
  family = runtime::invalid_argument("dropped");
  r = scrape(port_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body.find("app_temperature"), std::string::npos) << r->body;
}

TEST_F(metrics_frontend_test, cpu_gauges_hold_values_from_the_start) {
  auto r = scrape(port_);
  ASSERT_TRUE(r);
  for (const char* family :
       {"nv_cpu_utilization", "nv_cpu_memory_total_bytes", "nv_cpu_memory_used_bytes"})
    EXPECT_NE(r->body.find(std::string{"# TYPE "} + family + " gauge\n"), std::string::npos)
      << family;
  // An unlabelled series: "\nnv_cpu_memory_total_bytes <value>\n".
  const std::string series = "\nnv_cpu_memory_total_bytes ";
  auto at = r->body.find(series);
  ASSERT_NE(at, std::string::npos) << r->body;
  EXPECT_GT(std::stod(r->body.substr(at + series.size())), 0.0) << r->body;
}

TEST_F(metrics_frontend_test, cpu_gauges_are_switched_off_by_either_flag) {
  for (int off = 0; off < 2; ++off) {
    auto o = example_options();
    (off == 0 ? o.metrics : o.cpu_metrics) = false;
    auto s = start(o);
    ASSERT_TRUE(s) << s.error().to_string();
    EXPECT_EQ(s->metrics_text().find("nv_cpu_"), std::string::npos);
    EXPECT_NE(s->metrics_text().find("nv_inference_count{"), std::string::npos);
    ASSERT_TRUE(s->stop());
  }
  auto o = example_options();
  o.metrics_interval_ms = 0;
  EXPECT_EQ(start(o).error().code(), errc::invalid_argument);
}

TEST_F(metrics_frontend_test, trailing_slash_is_served) {
  auto r = scrape(port_, "GET", "/metrics/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(metric_value(r->body, "nv_inference_count", identity_labels), 0.0);
}

TEST_F(metrics_frontend_test, post_is_405_and_other_paths_are_404) {
  auto post = scrape(port_, "POST", "/metrics");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  for (auto target : {"/", "/v2/health/live", "/metrics/extra"}) {
    auto r = scrape(port_, "GET", target);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 404) << target;
  }
}

TEST_F(metrics_frontend_test, start_twice_stop_twice_and_restart) {
  auto again = metrics_->start();
  EXPECT_EQ(again.code(), errc::already_exists);
  EXPECT_EQ(again.message(), "Metrics server is already running.");
  ASSERT_TRUE(metrics_->stop());
  auto st = metrics_->stop();
  EXPECT_EQ(st.code(), errc::unavailable);
  EXPECT_EQ(st.message(), "Metrics server is not running.");
  EXPECT_FALSE(raw_client{port_}.connected());
  ASSERT_TRUE(metrics_->start());
  auto r = scrape(metrics_->port());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(metric_value(r->body, "nv_inference_count", identity_labels), 0.0);
}

TEST_F(metrics_frontend_test, a_port_in_use_fails_at_start) {
  auto opts = test_metrics_options();
  opts.port = port_;
  actors::metrics_frontend second{*srv_, opts};
  EXPECT_EQ(second.start().code(), errc::unavailable);
  EXPECT_EQ(second.stop().code(), errc::unavailable);
  auto r = scrape(port_);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST_F(metrics_frontend_test, bad_options_fail_at_start) {
  auto bad = [&](auto change) {
    auto opts = test_metrics_options();
    change(opts);
    actors::metrics_frontend fe{*srv_, opts};
    auto st = fe.start();
    EXPECT_EQ(st.code(), errc::invalid_argument) << st.to_string();
  };
  bad([](auto& o) { o.thread_count = 0; });
  bad([](auto& o) { o.port = -1; });
  bad([](auto& o) { o.port = 70000; });
  bad([](auto& o) { o.address = "not an address"; });
}

TEST_F(metrics_frontend_test, server_stop_stops_the_frontend) {
  ASSERT_TRUE(srv_->stop());
  EXPECT_FALSE(raw_client{port_}.connected());
  EXPECT_EQ(metrics_->start().code(), errc::unavailable);
  (void) metrics_->stop();
}

} // namespace
} // namespace conch::tests
