// Unary ModelInfer calls that their clients give up on (a deadline, a
// cancel): the server hears of it on the gRPC thread that ends the call and
// cancels the request, which frees the model at once; cancels that race the
// answers leave every call ended once and the server serving.

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"
#include "support/grpc_requests.hpp"
#include "support/model_configs.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {
namespace {

using std::chrono::milliseconds;

// A model on a worker of its own whose execution waits for the request's
// execute_delay_ms, and returns early once its requests are cancelled.
constexpr const char* model = "slow_fp32";

inference::ModelInferRequest delayed_request(int64_t delay_ms) {
  inference::ModelInferRequest req;
  req.set_model_name(model);
  (*req.mutable_parameters())["execute_delay_ms"].set_int64_param(delay_ms);
  add_input(req, "INPUT0", "FP32", {1, 16});
  req.add_raw_input_contents(raw_bytes(std::vector<float>(16, 2.5f)));
  return req;
}

bool is_identity_answer(const inference::ModelInferResponse& res) {
  return res.raw_output_contents_size() == 1
         && from_raw<float>(res.raw_output_contents(0)) == std::vector<float>(16, 2.5f);
}

class grpc_cancel : public grpc_fixture {
 protected:
  void SetUp() override {
    repo_.add_model(model, delayed_identity_config(model, 0));
    start_all(options_for(repo_.str(), actors::control_mode::none));
  }

  grpc::Status call(int64_t delay_ms, milliseconds deadline, inference::ModelInferResponse& res) {
    auto ctx = client_context();
    ctx->set_deadline(std::chrono::system_clock::now() + deadline);
    return stub_->ModelInfer(ctx.get(), delayed_request(delay_ms), &res);
  }

  temp_repository repo_;
};

TEST_F(grpc_cancel, a_call_past_its_deadline_frees_the_model) {
  inference::ModelInferResponse res;
  auto st = call(60'000, milliseconds{200}, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << st.error_message();
  // The one instance ran the abandoned request; cancelled, it returns at
  // once, so the next request is answered well inside its own deadline.
  inference::ModelInferResponse next;
  st = call(0, milliseconds{10'000}, next);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(is_identity_answer(next));
}

TEST_F(grpc_cancel, a_call_cancelled_beside_others_ends_alone) {
  // Three requests for the one instance, in whatever order they arrive:
  // one of 300 ms, one that would run for a minute but whose client gives
  // up after 100 ms (while it waits or while it runs), and a quick one.
  // The one given up on ends; the others are answered.
  auto ctx = client_context();
  inference::ModelInferResponse first_res;
  auto first = std::async(std::launch::async, [&] {
    return stub_->ModelInfer(ctx.get(), delayed_request(300), &first_res);
  });
  inference::ModelInferResponse cancelled_res;
  auto cancelled = std::async(std::launch::async, [&] {
    return call(60'000, milliseconds{100}, cancelled_res);
  });
  inference::ModelInferResponse last_res;
  auto last = std::async(std::launch::async, [&] {
    return call(0, milliseconds{10'000}, last_res);
  });
  auto st = cancelled.get();
  EXPECT_EQ(st.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << st.error_message();
  st = first.get();
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(is_identity_answer(first_res));
  st = last.get();
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(is_identity_answer(last_res));
}

TEST_F(grpc_cancel, cancels_racing_answers_end_every_call_once) {
  constexpr int clients = 4;
  constexpr int calls = 100;
  std::atomic<int> answered{0};
  std::atomic<int> expired{0};
  std::vector<std::future<std::string>> workers;
  for (int c = 0; c < clients; ++c)
    workers.push_back(std::async(std::launch::async, [&, c]() -> std::string {
      for (int i = 0; i < calls; ++i) {
        // Deadlines around the time a request takes: some calls are
        // answered, some cancelled while they wait, run or are answered.
        inference::ModelInferResponse res;
        auto st = call((i + c) % 3, milliseconds{1 + (i * 7 + c) % 5}, res);
        if (st.ok()) {
          if (!is_identity_answer(res))
            return "an OK call without identity's answer";
          ++answered;
        } else if (st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED
                   || st.error_code() == grpc::StatusCode::CANCELLED) {
          ++expired;
        } else {
          return "status " + std::to_string(st.error_code()) + ": " + st.error_message();
        }
      }
      return {};
    }));
  for (auto& w : workers) {
    ASSERT_EQ(w.wait_for(std::chrono::seconds{120}), std::future_status::ready) << "a client hung";
    auto unexpected = w.get();
    EXPECT_TRUE(unexpected.empty()) << unexpected;
  }
  EXPECT_EQ(answered + expired, clients * calls);
  // The server serves on: every instance and lane is free again.
  for (int i = 0; i < 4; ++i) {
    inference::ModelInferResponse res;
    auto st = call(0, milliseconds{10'000}, res);
    ASSERT_TRUE(st.ok()) << st.error_message();
    EXPECT_TRUE(is_identity_answer(res));
  }
}

} // namespace
} // namespace conch::tests
