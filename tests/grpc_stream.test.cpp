// ModelStreamInfer through the KServe gRPC frontend with the generated C++
// stub: request order for a non-decoupled model, final flags and empty final
// responses for a decoupled one, errors inside a stream, and the
// triton_grpc_error header.

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"
#include "support/model_configs.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {
namespace {

using stream_type
  = grpc::ClientReaderWriter<inference::ModelInferRequest, inference::ModelStreamInferResponse>;

inference::ModelInferRequest identity_request(const std::string& id, float value,
                                              const std::string& model = "identity_fp32") {
  inference::ModelInferRequest req;
  req.set_model_name(model);
  req.set_id(id);
  auto* in = req.add_inputs();
  in->set_name("INPUT0");
  in->set_datatype("FP32");
  in->add_shape(1);
  in->add_shape(16);
  std::vector<float> values(16, value);
  req.add_raw_input_contents()->assign(reinterpret_cast<const char*>(values.data()),
                                       values.size() * sizeof(float));
  return req;
}

inference::ModelInferRequest repeat_request(const std::string& id, std::vector<int32_t> values,
                                            bool empty_final) {
  inference::ModelInferRequest req;
  req.set_model_name("repeat_int32");
  req.set_id(id);
  auto* in = req.add_inputs();
  in->set_name("IN");
  in->set_datatype("INT32");
  in->add_shape(static_cast<int64_t>(values.size()));
  for (auto v : values)
    in->mutable_contents()->add_int_contents(v);
  if (empty_final)
    (*req.mutable_parameters())["triton_enable_empty_final_response"].set_bool_param(true);
  return req;
}

// The triton_final_response flag; fails the test when it is missing.
bool final_flag(const inference::ModelInferResponse& r) {
  auto i = r.parameters().find("triton_final_response");
  EXPECT_NE(i, r.parameters().end()) << "no triton_final_response on " << r.id();
  return i != r.parameters().end() && i->second.bool_param();
}

float first_value(const inference::ModelInferResponse& r) {
  float v = 0;
  if (r.raw_output_contents_size() > 0 && r.raw_output_contents(0).size() >= sizeof(float))
    std::memcpy(&v, r.raw_output_contents(0).data(), sizeof(float));
  return v;
}

int32_t int_output(const inference::ModelInferResponse& r, const std::string& name) {
  for (int i = 0; i < r.outputs_size(); ++i)
    if (r.outputs(i).name() == name && r.raw_output_contents(i).size() >= sizeof(int32_t)) {
      int32_t v = 0;
      std::memcpy(&v, r.raw_output_contents(i).data(), sizeof(v));
      return v;
    }
  ADD_FAILURE() << "no output " << name;
  return -1;
}

// Reads every response until the server ends the stream.
std::vector<inference::ModelStreamInferResponse> read_all(stream_type& stream) {
  std::vector<inference::ModelStreamInferResponse> all;
  inference::ModelStreamInferResponse r;
  while (stream.Read(&r))
    all.push_back(r);
  return all;
}

class grpc_stream : public grpc_fixture {
 protected:
  void SetUp() override { start_all(); }
};

TEST_F(grpc_stream, a_hundred_requests_come_back_in_order) {
  auto ctx = client_context();
  auto stream = stub_->ModelStreamInfer(ctx.get());
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(stream->Write(identity_request(std::to_string(i), static_cast<float>(i))));
  ASSERT_TRUE(stream->WritesDone());
  auto all = read_all(*stream);
  auto st = stream->Finish();
  EXPECT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(all.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    const auto& r = all[i];
    EXPECT_EQ(r.error_message(), "");
    EXPECT_EQ(r.infer_response().id(), std::to_string(i));
    EXPECT_EQ(r.infer_response().model_name(), "identity_fp32");
    EXPECT_EQ(first_value(r.infer_response()), static_cast<float>(i));
    EXPECT_TRUE(final_flag(r.infer_response()));
  }
}

TEST_F(grpc_stream, decoupled_responses_carry_final_flags) {
  auto ctx = client_context();
  auto stream = stub_->ModelStreamInfer(ctx.get());
  // With the empty final response: three responses, then an empty final one.
  ASSERT_TRUE(stream->Write(repeat_request("a", {10, 20, 30}, true)));
  std::vector<inference::ModelStreamInferResponse> first;
  inference::ModelStreamInferResponse r;
  while (first.size() < 4 && stream->Read(&r))
    first.push_back(r);
  ASSERT_EQ(first.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    const auto& ir = first[i].infer_response();
    EXPECT_EQ(ir.id(), "a");
    EXPECT_EQ(int_output(ir, "OUT"), 10 * (i + 1));
    EXPECT_FALSE(final_flag(ir));
  }
  const auto& last = first[3].infer_response();
  EXPECT_EQ(last.id(), "a");
  EXPECT_EQ(last.model_name(), "repeat_int32");
  EXPECT_EQ(last.outputs_size(), 0);
  EXPECT_TRUE(final_flag(last));
  // Without it: the responses only, none final.
  ASSERT_TRUE(stream->Write(repeat_request("b", {7, 8}, false)));
  ASSERT_TRUE(stream->WritesDone());
  auto rest = read_all(*stream);
  auto st = stream->Finish();
  EXPECT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(int_output(rest[0].infer_response(), "OUT"), 7);
  EXPECT_EQ(int_output(rest[1].infer_response(), "OUT"), 8);
  for (const auto& x : rest) {
    EXPECT_EQ(x.infer_response().id(), "b");
    EXPECT_FALSE(final_flag(x.infer_response()));
  }
}

TEST_F(grpc_stream, errors_are_written_into_the_stream_and_later_requests_served) {
  auto ctx = client_context();
  auto stream = stub_->ModelStreamInfer(ctx.get());
  ASSERT_TRUE(stream->Write(identity_request("ok-1", 1)));
  auto unknown = identity_request("bad-model", 2);
  unknown.set_model_name("no_such_model");
  ASSERT_TRUE(stream->Write(unknown));
  auto wrong_type = identity_request("bad-type", 3);
  wrong_type.mutable_inputs(0)->set_datatype("INT32");
  ASSERT_TRUE(stream->Write(wrong_type));
  ASSERT_TRUE(stream->Write(identity_request("ok-2", 4)));
  ASSERT_TRUE(stream->WritesDone());
  auto all = read_all(*stream);
  auto st = stream->Finish();
  EXPECT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].error_message(), "");
  EXPECT_EQ(first_value(all[0].infer_response()), 1.0f);
  EXPECT_NE(all[1].error_message(), "");
  EXPECT_EQ(all[1].infer_response().id(), "bad-model");
  EXPECT_EQ(all[1].infer_response().outputs_size(), 0);
  EXPECT_TRUE(final_flag(all[1].infer_response()));
  EXPECT_NE(all[2].error_message(), "");
  EXPECT_EQ(all[2].infer_response().id(), "bad-type");
  EXPECT_EQ(all[3].error_message(), "");
  EXPECT_EQ(all[3].infer_response().id(), "ok-2");
  EXPECT_EQ(first_value(all[3].infer_response()), 4.0f);
}

TEST_F(grpc_stream, the_grpc_error_header_ends_the_stream_with_the_status) {
  auto ctx = client_context();
  ctx->AddMetadata("triton_grpc_error", "true");
  auto stream = stub_->ModelStreamInfer(ctx.get());
  auto unknown = identity_request("bad-model", 2);
  unknown.set_model_name("no_such_model");
  ASSERT_TRUE(stream->Write(unknown));
  stream->WritesDone();
  auto all = read_all(*stream);
  auto st = stream->Finish();
  EXPECT_TRUE(all.empty());
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND) << st.error_message();
}

TEST_F(grpc_stream, a_cancelled_stream_ends) {
  auto ctx = client_context();
  auto stream = stub_->ModelStreamInfer(ctx.get());
  ASSERT_TRUE(stream->Write(identity_request("x", 1)));
  inference::ModelStreamInferResponse r;
  ASSERT_TRUE(stream->Read(&r));
  ctx->TryCancel();
  auto st = stream->Finish();
  EXPECT_EQ(st.error_code(), grpc::StatusCode::CANCELLED);
  // The server still serves new streams.
  auto ctx2 = client_context();
  auto again = stub_->ModelStreamInfer(ctx2.get());
  ASSERT_TRUE(again->Write(identity_request("y", 2)));
  again->WritesDone();
  EXPECT_EQ(read_all(*again).size(), 1u);
  EXPECT_TRUE(again->Finish().ok());
}

TEST_F(grpc_stream, stopping_the_frontend_ends_an_open_stream) {
  auto ctx = client_context();
  auto stream = stub_->ModelStreamInfer(ctx.get());
  ASSERT_TRUE(stream->Write(identity_request("x", 1)));
  inference::ModelStreamInferResponse r;
  ASSERT_TRUE(stream->Read(&r));
  // The stream is idle and open: the stop ends it instead of waiting for
  // the client.
  ASSERT_TRUE(grpc_->stop());
  EXPECT_FALSE(stream->Read(&r));
  auto st = stream->Finish();
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE) << st.error_message();
}

// A model that may block answers on its instance's worker; with other calls
// in flight, that worker hands each stream's writes to the frontend's
// finisher rather than writing them itself.
class grpc_stream_on_a_worker : public grpc_fixture {
 protected:
  void SetUp() override {
    repo_.add_model("blocking_fp32", delayed_identity_config("blocking_fp32", 0));
    start_all(options_for(repo_.str(), actors::control_mode::none));
  }

  temp_repository repo_;
};

TEST_F(grpc_stream_on_a_worker, streams_side_by_side_keep_their_order_and_lose_nothing) {
  constexpr int streams = 3;
  constexpr int requests = 200;
  std::vector<std::vector<inference::ModelStreamInferResponse>> answers(streams);
  std::vector<grpc::Status> statuses(streams);
  std::vector<std::thread> clients;
  for (int s = 0; s < streams; ++s)
    clients.emplace_back([&, s] {
      auto ctx = client_context();
      auto stream = stub_->ModelStreamInfer(ctx.get());
      // Writes and reads interleave, as a client that keeps a few requests
      // in flight would.
      std::thread writer{[&] {
        for (int i = 0; i < requests; ++i)
          if (!stream->Write(identity_request(std::to_string(i), static_cast<float>(s * 1000 + i),
                                              "blocking_fp32")))
            break;
        stream->WritesDone();
      }};
      answers[s] = read_all(*stream);
      writer.join();
      statuses[s] = stream->Finish();
    });
  for (auto& c : clients)
    c.join();
  for (int s = 0; s < streams; ++s) {
    EXPECT_TRUE(statuses[s].ok()) << statuses[s].error_message();
    ASSERT_EQ(answers[s].size(), static_cast<size_t>(requests)) << "stream " << s;
    for (int i = 0; i < requests; ++i) {
      const auto& r = answers[s][i];
      EXPECT_EQ(r.error_message(), "");
      EXPECT_EQ(r.infer_response().id(), std::to_string(i));
      EXPECT_EQ(first_value(r.infer_response()), static_cast<float>(s * 1000 + i));
    }
  }
}

} // namespace
} // namespace conch::tests
