#include "conch/runtime/backends/repeat/repeat_backend.hpp"

#include <chrono>

#include <gtest/gtest.h>

#include "conch/runtime/backends/test_support/harness.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::test_support;
using namespace std::chrono_literals;

namespace {

inference::ModelConfig repeat_config(inference::DataType in_type = inference::TYPE_INT32) {
  auto config = make_config("repeat_int32", "repeat");
  config.mutable_model_transaction_policy()->set_decoupled(true);
  add_input(config, "IN", in_type);
  add_input(config, "DELAY", inference::TYPE_UINT32);
  add_output(config, "OUT", in_type, {1});
  add_output(config, "IDX", inference::TYPE_UINT32, {1});
  return config;
}

std::shared_ptr<response_log> run_one(const inference::ModelConfig& config,
                                      inference_request request) {
  auto log = std::make_shared<response_log>();
  auto loaded = load(config);
  EXPECT_TRUE(loaded) << loaded.error().to_string();
  if (!loaded)
    return log;
  batch jobs{make_job(std::move(request), log)};
  loaded->instance->execute(jobs);
  return log;
}

uint32_t idx_of(const inference_response& r) {
  return values_of<uint32_t>(*output(r, "IDX")).at(0);
}

void expect_empty_final(const inference_response& r) {
  EXPECT_TRUE(r.error.is_ok()) << r.error.to_string();
  EXPECT_TRUE(r.final);
  EXPECT_TRUE(r.outputs.empty());
}

} // namespace

TEST(repeat_backend, sends_one_response_per_element_then_an_empty_final) {
  inference_request request;
  request.inputs.push_back(make_tensor<int32_t>("IN", data_type::int32, {3}, {7, 8, 9}));
  auto log = run_one(repeat_config(), std::move(request));
  ASSERT_EQ(log->responses.size(), 4u);
  for (uint32_t i = 0; i < 3; ++i) {
    const auto& r = log->responses[i];
    ASSERT_TRUE(r.error.is_ok()) << r.error.to_string();
    EXPECT_FALSE(r.final);
    const auto* out = output(r, "OUT");
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->type, data_type::int32);
    EXPECT_EQ(out->shape, (shape_type{1}));
    EXPECT_EQ(values_of<int32_t>(*out), (std::vector<int32_t>{static_cast<int32_t>(7 + i)}));
    EXPECT_EQ(output(r, "IDX")->type, data_type::uint32);
    EXPECT_EQ(idx_of(r), i);
  }
  expect_empty_final(log->responses[3]);
}

TEST(repeat_backend, repeats_bytes_elements) {
  inference_request request;
  request.inputs.push_back(make_bytes_tensor("IN", {"hello", ""}));
  auto log = run_one(repeat_config(inference::TYPE_STRING), std::move(request));
  ASSERT_EQ(log->responses.size(), 3u);
  EXPECT_EQ(bytes_of(*output(log->responses[0], "OUT")),
            bytes_of(make_bytes_tensor("OUT", {"hello"})));
  EXPECT_EQ(bytes_of(*output(log->responses[1], "OUT")), bytes_of(make_bytes_tensor("OUT", {""})));
  expect_empty_final(log->responses[2]);
}

TEST(repeat_backend, repeat_count_sends_index_only_responses) {
  inference_request request;
  request.parameters.push_back({"repeat_count", int64_t{4}});
  auto log = run_one(repeat_config(), std::move(request));
  ASSERT_EQ(log->responses.size(), 5u);
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_EQ(log->responses[i].outputs.size(), 1u);
    EXPECT_EQ(idx_of(log->responses[i]), i);
  }
  expect_empty_final(log->responses[4]);
}

TEST(repeat_backend, without_input_or_count_sends_only_the_final_response) {
  auto log = run_one(repeat_config(), inference_request{});
  ASSERT_EQ(log->responses.size(), 1u);
  expect_empty_final(log->responses[0]);
}

TEST(repeat_backend, a_negative_repeat_count_is_invalid) {
  inference_request request;
  request.parameters.push_back({"repeat_count", int64_t{-1}});
  auto log = run_one(repeat_config(), std::move(request));
  ASSERT_EQ(log->responses.size(), 1u);
  EXPECT_EQ(log->responses[0].error.code(), errc::invalid_argument);
  EXPECT_NE(log->responses[0].error.message().find("repeat_count"), std::string::npos);
}

TEST(repeat_backend, honours_requested_outputs) {
  inference_request request;
  request.inputs.push_back(make_tensor<int32_t>("IN", data_type::int32, {2}, {1, 2}));
  request.requested_outputs = {"IDX"};
  auto log = run_one(repeat_config(), std::move(request));
  ASSERT_EQ(log->responses.size(), 3u);
  ASSERT_EQ(log->responses[1].outputs.size(), 1u);
  EXPECT_EQ(log->responses[1].outputs[0].name, "IDX");
}

TEST(repeat_backend, a_job_cancelled_mid_stream_ends_cancelled) {
  auto loaded = load(repeat_config());
  ASSERT_TRUE(loaded);
  inference_request request;
  request.inputs.push_back(make_tensor<int32_t>("IN", data_type::int32, {5}, {1, 2, 3, 4, 5}));
  auto log = std::make_shared<response_log>();
  std::weak_ptr<inference_job> self;
  auto job = std::make_shared<inference_job>(std::move(request), [&](inference_response&& r) {
    log->responses.push_back(std::move(r));
    if (log->responses.size() == 2)
      self.lock()->cancel();
  });
  self = job;
  batch jobs{job};
  loaded->instance->execute(jobs);
  ASSERT_EQ(log->responses.size(), 3u);
  EXPECT_EQ(idx_of(log->responses[1]), 1u);
  EXPECT_EQ(log->responses[2].error, cancelled("request cancelled"));
  EXPECT_TRUE(log->responses[2].final);
}

TEST(repeat_backend, delay_waits_before_responses_and_stops_when_cancelled) {
  auto loaded = load(repeat_config());
  ASSERT_TRUE(loaded);
  // Declaring DELAY means requests may sleep: the model needs its own thread.
  EXPECT_TRUE(loaded->model->blocking());
  inference_request request;
  request.inputs.push_back(make_tensor<int32_t>("IN", data_type::int32, {3}, {1, 2, 3}));
  request.inputs.push_back(make_tensor<uint32_t>("DELAY", data_type::uint32, {3}, {20, 0, 600000}));
  auto log = std::make_shared<response_log>();
  std::weak_ptr<inference_job> self;
  auto job = std::make_shared<inference_job>(std::move(request), [&](inference_response&& r) {
    log->responses.push_back(std::move(r));
    if (log->responses.size() == 2)
      self.lock()->cancel();
  });
  self = job;
  batch jobs{job};
  auto start = std::chrono::steady_clock::now();
  loaded->instance->execute(jobs);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, 20ms);
  EXPECT_LT(elapsed, 10s);
  ASSERT_EQ(log->responses.size(), 3u);
  EXPECT_EQ(log->responses[2].error.code(), errc::cancelled);
}

TEST(repeat_backend, blocks_only_when_it_may_sleep) {
  auto config = make_config("repeat_count_only", "repeat");
  config.mutable_model_transaction_policy()->set_decoupled(true);
  add_output(config, "IDX", inference::TYPE_UINT32, {1});
  auto plain = load(config);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->model->blocking());
  set_parameter(config, "execute_delay_ms", "0");
  auto delayed = load(config);
  ASSERT_TRUE(delayed);
  EXPECT_TRUE(delayed->model->blocking());
}

TEST(repeat_backend, requires_a_decoupled_model) {
  auto config = repeat_config();
  config.mutable_model_transaction_policy()->set_decoupled(false);
  auto loaded = load(config);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error(),
            invalid_argument("model 'repeat_int32': repeat backend requires a decoupled model"));
}

TEST(repeat_backend, requires_its_outputs) {
  auto no_idx = make_config("r", "repeat");
  no_idx.mutable_model_transaction_policy()->set_decoupled(true);
  EXPECT_EQ(load(no_idx).error().code(), errc::invalid_argument);

  auto wrong_out = repeat_config(inference::TYPE_INT32);
  wrong_out.mutable_output(0)->set_data_type(inference::TYPE_FP32);
  auto error = load(wrong_out).error();
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(error.message().find("'OUT'"), std::string::npos);
}
