// Stopping the HTTP frontend, or the whole server, while keep-alive clients
// keep it busy: every request gets a response (200, or 503 once stopping)
// or a clean close of its connection, and every client ends; never a hang.
// The same for each dialect the HTTP frontend speaks: KServe, SageMaker's
// /invocations and Vertex AI's predict route.

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/http_fixture.hpp"

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

} // namespace
} // namespace conch::tests
