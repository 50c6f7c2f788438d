// The byte limits of the KServe gRPC frontend: the largest message, the
// budget of request bytes in flight, and a stream whose client stops reading
// a decoupled model's responses.

#include <chrono>
#include <future>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/gate_backend.hpp"
#include "support/grpc_fixture.hpp"
#include "support/grpc_requests.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {
namespace {

using stream_type
  = grpc::ClientReaderWriter<inference::ModelInferRequest, inference::ModelStreamInferResponse>;

inference::ModelInferRequest identity_request(size_t floats) {
  inference::ModelInferRequest req;
  req.set_model_name("identity_fp32");
  auto* in = req.add_inputs();
  in->set_name("INPUT0");
  in->set_datatype("FP32");
  in->add_shape(1);
  in->add_shape(static_cast<int64_t>(floats));
  req.add_raw_input_contents()->assign(floats * sizeof(float), '\0');
  return req;
}

inference::ModelInferRequest repeat_request(int n) {
  inference::ModelInferRequest req;
  req.set_model_name("repeat_int32");
  req.set_id("many");
  auto* in = req.add_inputs();
  in->set_name("IN");
  in->set_datatype("INT32");
  in->add_shape(n);
  for (int i = 0; i < n; ++i)
    in->mutable_contents()->add_int_contents(i);
  return req;
}

// The value of series `name` of the gRPC frontend in the server's metrics.
double grpc_series(const actors::server& srv, const std::string& name,
                   const std::string& extra = "") {
  std::regex line{name + R"(\{[^}]*frontend="gRPC"[^}]*)" + extra + R"([^}]*\} (\S+))"};
  std::smatch m;
  auto text = srv.metrics_text();
  if (!std::regex_search(text, m, line)) {
    ADD_FAILURE() << "no " << name << " in\n" << text;
    return -1;
  }
  return std::stod(m[1]);
}

class grpc_limits : public grpc_fixture {};

TEST_F(grpc_limits, a_message_over_max_message_size_is_refused) {
  auto o = test_grpc_options();
  o.max_message_size = 64 * 1024;
  start_all(example_options(), o);
  inference::ModelInferResponse res;
  auto big = stub_->ModelInfer(client_context().get(), identity_request(32 * 1024), &res);
  EXPECT_EQ(big.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << big.error_message();
  auto small = stub_->ModelInfer(client_context().get(), identity_request(16), &res);
  EXPECT_TRUE(small.ok()) << small.error_message();
}

TEST_F(grpc_limits, a_bad_max_message_size_fails_the_start) {
  auto s = start(example_options());
  ASSERT_TRUE(s);
  auto o = test_grpc_options();
  o.max_message_size = 0;
  actors::grpc_frontend bad{*s, o};
  auto st = bad.start();
  EXPECT_EQ(st.code(), runtime::errc::invalid_argument);
  EXPECT_EQ(st.message(), "max_message_size must be greater than 0, got 0");
}

TEST_F(grpc_limits, a_request_larger_than_the_whole_byte_budget_is_too_large) {
  auto o = test_grpc_options();
  o.max_inflight_bytes = 1024;
  start_all(example_options(), o);
  inference::ModelInferResponse res;
  auto big = stub_->ModelInfer(client_context().get(), identity_request(1024), &res);
  EXPECT_EQ(big.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << big.error_message();
  EXPECT_TRUE(std::regex_match(big.error_message(),
                               std::regex{"request of [0-9]+ bytes exceeds the whole budget of "
                                          "requests in flight, 1024 bytes"}))
    << big.error_message();
  EXPECT_EQ(grpc_series(*srv_, "conch_requests_refused_total", R"(reason="body_size")"), 1);
  auto small = stub_->ModelInfer(client_context().get(), identity_request(16), &res);
  EXPECT_TRUE(small.ok()) << small.error_message();
}

// A model that holds its requests at a gate, behind a budget of 6000 bytes.
class grpc_byte_budget : public grpc_fixture {
 protected:
  void SetUp() override {
    gate_ = std::make_shared<gate>();
    register_gate_backend("gate_grpc_bytes", gate_);
    repo_.add_model("held", gate_config("held", "gate_grpc_bytes", 0));
    auto grpc = test_grpc_options();
    grpc.max_inflight_bytes = 6000;
    start_all(options_for(repo_.str()), grpc);
  }

  void TearDown() override {
    gate_->open();
    grpc_fixture::TearDown();
  }

  // A request of about `bytes` bytes, padded with a parameter.
  static inference::ModelInferRequest held_request(size_t bytes) {
    inference::ModelInferRequest req;
    req.set_model_name("held");
    add_input(req, "INPUT0", "FP32", {4});
    *req.add_raw_input_contents() = raw_bytes(std::vector<float>{1, 2, 3, 4});
    (*req.mutable_parameters())["pad"].set_string_param(std::string(bytes, 'p'));
    return req;
  }

  std::shared_ptr<gate> gate_;
  temp_repository repo_;
};

TEST_F(grpc_byte_budget, requests_past_it_are_unavailable_and_counted) {
  auto first_ctx = client_context();
  auto first_req = held_request(3500);
  inference::ModelInferResponse first_res;
  std::promise<grpc::Status> first_done;
  stub_->async()->ModelInfer(first_ctx.get(), &first_req, &first_res,
                             [&](grpc::Status st) { first_done.set_value(std::move(st)); });
  ASSERT_TRUE(gate_->wait_entered(1, std::chrono::seconds{30}));
  EXPECT_GT(grpc_series(*srv_, "conch_request_bytes_held"), 3500);

  inference::ModelInferResponse res;
  auto busy = stub_->ModelInfer(client_context().get(), held_request(3500), &res);
  EXPECT_EQ(busy.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(busy.error_message(), "the server is busy: requests in flight exceed 6000 bytes");
  // In a stream it is an in-stream error, and the stream goes on.
  auto ctx = client_context();
  auto stream = stub_->ModelStreamInfer(ctx.get());
  ASSERT_TRUE(stream->Write(held_request(3500)));
  inference::ModelStreamInferResponse message;
  ASSERT_TRUE(stream->Read(&message));
  EXPECT_EQ(message.error_message(), "the server is busy: requests in flight exceed 6000 bytes");

  gate_->open();
  auto done = first_done.get_future();
  ASSERT_EQ(done.wait_for(std::chrono::seconds{30}), std::future_status::ready);
  EXPECT_TRUE(done.get().ok());
  ASSERT_TRUE(stream->Write(held_request(3500)));
  ASSERT_TRUE(stream->Read(&message));
  EXPECT_EQ(message.error_message(), "");
  ASSERT_TRUE(stream->WritesDone());
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(grpc_series(*srv_, "conch_requests_refused_total", R"(reason="input_budget")"), 2);
  EXPECT_EQ(grpc_series(*srv_, "conch_request_bytes_held"), 0);
}

TEST_F(grpc_limits, a_stream_whose_client_stops_reading_ends_with_resource_exhausted) {
  auto o = test_grpc_options();
  o.stream_high_water = 64 * 1024;
  o.max_stream_backlog = 1024 * 1024;
  start_all(example_options(), o);
  auto ctx = client_context();
  auto stream = stub_->ModelStreamInfer(ctx.get());
  // 200,000 responses of about 60 bytes each: 12 MB the client never reads.
  constexpr int responses = 200'000;
  ASSERT_TRUE(stream->Write(repeat_request(responses)));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  while (grpc_series(*srv_, "conch_stream_backlog_closes_total") < 1) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the stream was never ended";
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  // Once it ends, nothing more is held for it than the write under way.
  EXPECT_LT(grpc_series(*srv_, "conch_response_bytes_buffered"), 64 * 1024);
  inference::ModelStreamInferResponse message;
  int read = 0;
  while (stream->Read(&message))
    ++read;
  EXPECT_LT(read, responses);
  auto st = stream->Finish();
  EXPECT_EQ(st.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(st.error_message(),
            "the client does not read its responses: more than 1048576 bytes are waiting");
  // The frontend serves on.
  inference::ModelInferResponse res;
  auto ok = stub_->ModelInfer(client_context().get(), identity_request(16), &res);
  EXPECT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_EQ(grpc_series(*srv_, "conch_response_bytes_buffered"), 0);
}

} // namespace
} // namespace conch::tests
