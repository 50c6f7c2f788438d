// Stopping the HTTP frontend, or the whole server, while keep-alive clients
// keep it busy: every request gets a response (200, or 503 once stopping)
// or a clean close of its connection, and every client ends; never a hang.
// The same for each dialect the HTTP frontend speaks: KServe, SageMaker's
// /invocations and Vertex AI's predict route. And a stop under a client too
// slow to finish still ends within the server's exit timeout.

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/http_fixture.hpp"
#include "support/metrics_text.hpp"

namespace conch::tests {
namespace {

using transports::http::test::make_request;

constexpr int clients = 4;

const std::string infer_body =
  R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)"
  R"("data":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}]})";

// One dialect: its options and the path that runs identity_fp32.
struct dialect {
  const char* name;
  void (*configure)(actors::http_options&);
  const char* infer_path;
};

const dialect dialects[] = {
  {"kserve", [](actors::http_options&) {}, "/v2/models/identity_fp32/infer"},
  {"sagemaker",
   [](actors::http_options& o) {
     o.sagemaker = true;
     o.sagemaker_default_model = "identity_fp32";
   },
   "/invocations"},
  {"vertex_ai",
   [](actors::http_options& o) {
     o.vertex_ai = true;
     o.vertex_ai_default_model = "identity_fp32";
     o.vertex_ai_health_route = "/health";
     o.vertex_ai_predict_route = "/predict";
   },
   "/predict"},
};

class http_stop_under_load : public http_fixture,
                             public ::testing::WithParamInterface<dialect> {
 protected:
  void SetUp() override {
    auto http = test_http_options();
    GetParam().configure(http);
    start_all(example_options(), http);
  }

  void start_load() {
    for (int i = 0; i < clients; ++i)
      clients_.push_back(std::async(std::launch::async, [this] { client_loop(); }));
  }

  // Waits for every client; false when one still runs after 60 s.
  bool clients_end() {
    done_ = true;
    for (auto& c : clients_)
      if (c.wait_for(std::chrono::seconds{60}) != std::future_status::ready)
        return false;
    return true;
  }

  // One keep-alive connection, requests one after another, until the
  // connection goes or the test is done.
  void client_loop() {
    raw_client c{port_};
    if (!c.connected())
      return;
    auto request = make_request("POST", GetParam().infer_path, infer_body, "");
    while (!done_) {
      if (!c.send(request)) {
        ++closed_;
        return;
      }
      auto r = c.read_response();
      if (!r) {
        // No answer: acceptable only as a close by the server, not a hang.
        if (c.wait_closed())
          ++closed_;
        else
          note_unexpected("a request neither answered nor closed");
        return;
      }
      if (r->status == 200 && r->body.find("\"OUTPUT0\"") != std::string::npos)
        ++answered_;
      else if (r->status == 503)
        ++refused_;
      else
        note_unexpected("status " + std::to_string(r->status) + ": " + r->body);
    }
  }

  void note_unexpected(const std::string& what) {
    std::lock_guard<std::mutex> guard{mutex_};
    unexpected_.push_back(what);
  }

  void expect_nothing_unexpected() {
    std::lock_guard<std::mutex> guard{mutex_};
    EXPECT_TRUE(unexpected_.empty()) << unexpected_.front();
  }

  std::atomic<bool> done_{false};
  std::atomic<int> answered_{0};
  std::atomic<int> refused_{0};
  std::atomic<int> closed_{0};
  std::mutex mutex_;
  std::vector<std::string> unexpected_;  // guarded by mutex_
  std::vector<std::future<void>> clients_;
};

TEST_P(http_stop_under_load, stopping_the_frontend) {
  start_load();
  ASSERT_TRUE(eventually([&] { return answered_ >= 200; }));
  ASSERT_TRUE(http_->stop());
  ASSERT_TRUE(clients_end()) << "a client hung";
  expect_nothing_unexpected();
  // The frontend starts again and serves.
  ASSERT_TRUE(http_->start());
  port_ = http_->port();
  auto r = call("POST", GetParam().infer_path, infer_body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST_P(http_stop_under_load, stopping_the_server) {
  start_load();
  ASSERT_TRUE(eventually([&] { return answered_ >= 200; }));
  ASSERT_TRUE(srv_->stop());
  ASSERT_TRUE(clients_end()) << "a client hung";
  expect_nothing_unexpected();
  // Nothing listens any more: a new request finds no server.
  EXPECT_FALSE(call("POST", GetParam().infer_path, infer_body));
}

INSTANTIATE_TEST_SUITE_P(dialects, http_stop_under_load, ::testing::ValuesIn(dialects),
                         [](const ::testing::TestParamInfo<dialect>& info) {
                           return std::string{info.param.name};
                         });

// -- a client too slow for the exit timeout --------------------------------

class http_stop_slow_client : public http_fixture {};

// A client is midway through its request when the frontend stops, and the
// server's exit timeout (3 s) is shorter than the drain timeout (5 s) plus
// the linger after it: the stop still ends within the exit timeout, without
// an error, and the client hears 503.
TEST_F(http_stop_slow_client, a_frontend_stop_ends_within_the_exit_timeout) {
  auto options = example_options();
  options.exit_timeout = 3;
  auto http = test_http_options();
  ASSERT_EQ(http.policy.drain_timeout, std::chrono::seconds{5});
  start_all(options, http);
  raw_client slow{port_};
  ASSERT_TRUE(slow.send("POST /v2/models/identity_fp32/infer HTTP/1.1\r\nHost: t\r\n"
                        "Content-Length: 1000\r\n\r\n{\"inputs\":"
                        + std::string(100, ' ')));
  // The frontend holds the body's first bytes: the request is being read.
  auto labels = "frontend=\"HTTP\",port=\"" + std::to_string(port_) + "\"";
  ASSERT_TRUE(eventually([&] {
    auto held = metric_value(srv_->metrics_text(), "conch_request_bytes_held", labels);
    return held && *held > 0;
  }));
  auto begin = std::chrono::steady_clock::now();
  auto stopped = std::async(std::launch::async, [this] { return http_->stop(); });
  auto answer = slow.read_response();
  slow.close();
  auto st = stopped.get();
  auto took = std::chrono::steady_clock::now() - begin;
  EXPECT_TRUE(st) << st.to_string();
  EXPECT_LT(took, std::chrono::seconds{options.exit_timeout});
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 503);
}

} // namespace
} // namespace conch::tests
