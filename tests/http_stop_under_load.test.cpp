// Stopping the HTTP frontend, or the whole server, while keep-alive clients
// keep it busy: every request gets a response (200, or 503 once stopping)
// or a clean close of its connection, and every client ends; never a hang.

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

class http_stop_under_load : public http_fixture {
 protected:
  void SetUp() override { start_all(); }

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
    auto request = make_request("POST", "/v2/models/identity_fp32/infer", infer_body, "");
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

TEST_F(http_stop_under_load, stopping_the_frontend) {
  start_load();
  ASSERT_TRUE(eventually([&] { return answered_ >= 200; }));
  ASSERT_TRUE(http_->stop());
  ASSERT_TRUE(clients_end()) << "a client hung";
  expect_nothing_unexpected();
  // The frontend starts again and serves.
  ASSERT_TRUE(http_->start());
  port_ = http_->port();
  auto r = call("POST", "/v2/models/identity_fp32/infer", infer_body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST_F(http_stop_under_load, stopping_the_server) {
  start_load();
  ASSERT_TRUE(eventually([&] { return answered_ >= 200; }));
  ASSERT_TRUE(srv_->stop());
  ASSERT_TRUE(clients_end()) << "a client hung";
  expect_nothing_unexpected();
  // Nothing listens any more: a new request finds no server.
  EXPECT_FALSE(call("POST", "/v2/models/identity_fp32/infer", infer_body));
}

} // namespace
} // namespace conch::tests
