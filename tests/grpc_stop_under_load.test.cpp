// Stopping the gRPC frontend, or the whole server, while unary and streaming
// clients keep it busy: every call completes, or fails with UNAVAILABLE or
// CANCELLED, and every client thread ends; never a hang or a crash. Once
// with a model that runs on the gRPC threads (the direct lane), once with
// one that may block, which answers on its instance's worker, so unary
// calls answered while others wait are finished by the frontend's finisher.

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"
#include "support/grpc_requests.hpp"
#include "support/model_configs.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {
namespace {

constexpr int unary_clients = 4;
constexpr int stream_clients = 2;

// The model the clients call: the parameter of the test.
thread_local std::string model_name = "identity_fp32";

inference::ModelInferRequest identity_request() {
  inference::ModelInferRequest req;
  req.set_model_name(model_name);
  add_input(req, "INPUT0", "FP32", {1, 16});
  req.add_raw_input_contents(raw_bytes(std::vector<float>(16, 1.5f)));
  return req;
}

// True when `res` is identity_fp32's answer to identity_request().
bool is_identity_answer(const inference::ModelInferResponse& res) {
  return res.raw_output_contents_size() == 1
         && from_raw<float>(res.raw_output_contents(0)) == std::vector<float>(16, 1.5f);
}

class grpc_stop_under_load : public grpc_fixture, public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    if (!blocking()) {
      start_all();
      return;
    }
    repo_.add_model("blocking_fp32", delayed_identity_config("blocking_fp32", 0));
    start_all(options_for(repo_.str(), actors::control_mode::none));
  }

  static bool blocking() { return GetParam(); }
  static std::string model() { return blocking() ? "blocking_fp32" : "identity_fp32"; }

  // Starts the clients; each runs until `done_` or until its channel fails.
  void start_load() {
    for (int i = 0; i < unary_clients; ++i)
      clients_.push_back(std::async(std::launch::async, [this, m = model()] {
        model_name = m;
        unary_loop();
      }));
    for (int i = 0; i < stream_clients; ++i)
      clients_.push_back(std::async(std::launch::async, [this, m = model()] {
        model_name = m;
        stream_loop();
      }));
  }

  // Waits for every client; false when one is still running after 60 s.
  bool clients_end() {
    done_ = true;
    for (auto& c : clients_)
      if (c.wait_for(std::chrono::seconds{60}) != std::future_status::ready)
        return false;
    return true;
  }

  void unary_loop() {
    auto req = identity_request();
    while (!done_) {
      inference::ModelInferResponse res;
      auto st = stub_->ModelInfer(client_context().get(), req, &res);
      if (!record(st, st.ok() && is_identity_answer(res)))
        return;
    }
  }

  void stream_loop() {
    auto ctx = client_context();
    auto stream = stub_->ModelStreamInfer(ctx.get());
    auto req = identity_request();
    while (!done_) {
      if (!stream->Write(req))
        break;
      inference::ModelStreamInferResponse res;
      if (!stream->Read(&res))
        break;
      // An error inside the stream (the server stopping) keeps it open.
      bool ok = res.error_message().empty() && is_identity_answer(res.infer_response());
      if (!ok)
        record_stream_error(res.error_message());
      else
        ++answered_;
    }
    stream->WritesDone();
    auto st = stream->Finish();
    if (!st.ok())
      record(st, false);
  }

  // Counts an outcome; false when the client should stop calling.
  bool record(const grpc::Status& st, bool answered) {
    if (st.ok()) {
      if (answered)
        ++answered_;
      else
        note_unexpected("an OK call without identity's answer");
      return true;
    }
    auto code = st.error_code();
    if (code != grpc::StatusCode::UNAVAILABLE && code != grpc::StatusCode::CANCELLED)
      note_unexpected("status " + std::to_string(code) + ": " + st.error_message());
    ++failed_;
    return false;
  }

  void record_stream_error(const std::string& message) {
    ++stream_errors_;
    if (message.empty())
      note_unexpected("a stream response without identity's answer");
  }

  void note_unexpected(const std::string& what) {
    std::lock_guard<std::mutex> guard{mutex_};
    unexpected_.push_back(what);
  }

  std::atomic<bool> done_{false};
  std::atomic<int> answered_{0};
  std::atomic<int> failed_{0};
  std::atomic<int> stream_errors_{0};
  std::mutex mutex_;
  std::vector<std::string> unexpected_;  // guarded by mutex_
  std::vector<std::future<void>> clients_;
  temp_repository repo_;
};

TEST_P(grpc_stop_under_load, stopping_the_frontend) {
  model_name = model();
  start_load();
  ASSERT_TRUE(eventually([&] { return answered_ >= 200; }));
  ASSERT_TRUE(grpc_->stop());
  ASSERT_TRUE(clients_end()) << "a client hung";
  std::lock_guard<std::mutex> guard{mutex_};
  EXPECT_TRUE(unexpected_.empty()) << unexpected_.front();
  // The server still serves in-process, and the frontend starts again.
  ASSERT_TRUE(grpc_->start());
  port_ = grpc_->port();
  connect();
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(client_context().get(), identity_request(), &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(is_identity_answer(res));
}

TEST_P(grpc_stop_under_load, stopping_the_server) {
  model_name = model();
  start_load();
  ASSERT_TRUE(eventually([&] { return answered_ >= 200; }));
  ASSERT_TRUE(srv_->stop());
  ASSERT_TRUE(clients_end()) << "a client hung";
  std::lock_guard<std::mutex> guard{mutex_};
  EXPECT_TRUE(unexpected_.empty()) << unexpected_.front();
  // Calls after the stop fail cleanly.
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(client_context().get(), identity_request(), &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
}

INSTANTIATE_TEST_SUITE_P(models, grpc_stop_under_load, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "blocking" : "inline"; });

} // namespace
} // namespace conch::tests
