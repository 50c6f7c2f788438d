#include "conch/runtime/backends/identity/identity_backend.hpp"

#include <chrono>

#include <gtest/gtest.h>

#include "conch/runtime/backends/test_support/harness.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::test_support;
using namespace std::chrono_literals;

namespace {

/// An identity configuration with INPUTk -> OUTPUTk of one type.
inference::ModelConfig identity_config(inference::DataType type, int pairs = 1) {
  auto config = make_config("ident", "identity");
  for (int i = 0; i < pairs; ++i) {
    add_input(config, "INPUT" + std::to_string(i), type);
    add_output(config, "OUTPUT" + std::to_string(i), type);
  }
  return config;
}

/// Runs one request through a freshly loaded model; returns its responses.
std::vector<inference_response> run_one(const inference::ModelConfig& config,
                                        inference_request request) {
  auto loaded = load(config);
  EXPECT_TRUE(loaded) << loaded.error().to_string();
  if (!loaded)
    return {};
  auto log = std::make_shared<response_log>();
  batch jobs{make_job(std::move(request), log)};
  loaded->instance->execute(jobs);
  return log->responses;
}

/// Checks that a type round-trips byte for byte.
void expect_round_trip(inference::DataType config_type, tensor in) {
  auto expected = bytes_of(in);
  auto shape = in.shape;
  auto type = in.type;
  inference_request request;
  request.inputs.push_back(std::move(in));
  auto responses = run_one(identity_config(config_type), std::move(request));
  ASSERT_EQ(responses.size(), 1u);
  const auto& r = responses[0];
  ASSERT_TRUE(r.error.is_ok()) << r.error.to_string();
  EXPECT_TRUE(r.final);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].name, "OUTPUT0");
  EXPECT_EQ(r.outputs[0].type, type);
  EXPECT_EQ(r.outputs[0].shape, shape);
  EXPECT_EQ(bytes_of(r.outputs[0]), expected);
}

} // namespace

TEST(identity_backend, returns_fp32_int64_and_bytes_unchanged) {
  expect_round_trip(inference::TYPE_FP32,
                    make_tensor<float>("INPUT0", data_type::fp32, {2, 2}, {1.5f, -2.f, 0.f, 1e9f}));
  expect_round_trip(inference::TYPE_INT64,
                    make_tensor<int64_t>("INPUT0", data_type::int64, {3}, {-1, 0, 1LL << 40}));
  expect_round_trip(inference::TYPE_STRING, make_bytes_tensor("INPUT0", {"abc", "", std::string_view{"\0\xff", 2}}));
}

TEST(identity_backend, returns_half_precision_types_as_raw_bytes) {
  // 1.0, -2.0 and the largest finite FP16; 1.0 and -0.0 in BF16.
  expect_round_trip(inference::TYPE_FP16,
                    make_tensor<uint16_t>("INPUT0", data_type::fp16, {3}, {0x3c00, 0xc000, 0x7bff}));
  expect_round_trip(inference::TYPE_BF16,
                    make_tensor<uint16_t>("INPUT0", data_type::bf16, {1, 2}, {0x3f80, 0x8000}));
}

TEST(identity_backend, returns_empty_and_scalar_tensors) {
  expect_round_trip(inference::TYPE_INT32, make_tensor<int32_t>("INPUT0", data_type::int32, {0}, {}));
  expect_round_trip(inference::TYPE_INT8, make_tensor<int8_t>("INPUT0", data_type::int8, {}, {7}));
}

TEST(identity_backend, outputs_alias_inputs_without_an_allocator) {
  inference_request request;
  request.inputs.push_back(make_tensor<float>("INPUT0", data_type::fp32, {2}, {1.f, 2.f}));
  auto* input_bytes = request.inputs[0].data.data();
  auto responses = run_one(identity_config(inference::TYPE_FP32), std::move(request));
  ASSERT_EQ(responses.size(), 1u);
  ASSERT_EQ(responses[0].outputs.size(), 1u);
  EXPECT_EQ(responses[0].outputs[0].data.data(), input_bytes);
}

TEST(identity_backend, copies_into_memory_from_the_request_allocator) {
  auto allocator = std::make_shared<recording_allocator>();
  inference_request request;
  request.inputs.push_back(make_tensor<float>("INPUT0", data_type::fp32, {2}, {1.f, 2.f}));
  request.allocator = allocator;
  auto* input_bytes = request.inputs[0].data.data();
  auto expected = bytes_of(request.inputs[0]);
  auto responses = run_one(identity_config(inference::TYPE_FP32), std::move(request));
  ASSERT_EQ(responses.size(), 1u);
  ASSERT_EQ(responses[0].outputs.size(), 1u);
  EXPECT_NE(responses[0].outputs[0].data.data(), input_bytes);
  EXPECT_EQ(bytes_of(responses[0].outputs[0]), expected);
  EXPECT_EQ(allocator->names, (std::vector<std::string>{"OUTPUT0"}));
}

TEST(identity_backend, device_inputs_cannot_be_copied) {
  inference_request request;
  auto in = make_tensor<float>("INPUT0", data_type::fp32, {1}, {1.f});
  in.data = buffer{in.data.owner(), in.data.data(), in.data.size(), memory_type::gpu, 0};
  request.inputs.push_back(in);
  request.allocator = std::make_shared<recording_allocator>();
  auto responses = run_one(identity_config(inference::TYPE_FP32), std::move(request));
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].error.code(), errc::unsupported);
  EXPECT_TRUE(responses[0].final);
}

TEST(identity_backend, matches_inputs_by_name_and_honours_requested_outputs) {
  inference_request request;
  request.inputs.push_back(make_tensor<int32_t>("INPUT1", data_type::int32, {1}, {11}));
  request.inputs.push_back(make_tensor<int32_t>("INPUT0", data_type::int32, {1}, {10}));
  auto all = run_one(identity_config(inference::TYPE_INT32, 2), request);
  ASSERT_EQ(all.size(), 1u);
  ASSERT_EQ(all[0].outputs.size(), 2u);
  EXPECT_EQ(values_of<int32_t>(*output(all[0], "OUTPUT0")), (std::vector<int32_t>{10}));
  EXPECT_EQ(values_of<int32_t>(*output(all[0], "OUTPUT1")), (std::vector<int32_t>{11}));

  request.requested_outputs = {"OUTPUT1"};
  auto some = run_one(identity_config(inference::TYPE_INT32, 2), request);
  ASSERT_EQ(some.size(), 1u);
  ASSERT_EQ(some[0].outputs.size(), 1u);
  EXPECT_EQ(some[0].outputs[0].name, "OUTPUT1");
}

TEST(identity_backend, answers_every_job_of_a_batch_once) {
  auto loaded = load(identity_config(inference::TYPE_INT32));
  ASSERT_TRUE(loaded);
  std::vector<std::shared_ptr<response_log>> logs;
  batch jobs;
  for (int32_t i = 0; i < 3; ++i) {
    inference_request request;
    request.inputs.push_back(make_tensor<int32_t>("INPUT0", data_type::int32, {1}, {i}));
    logs.push_back(std::make_shared<response_log>());
    jobs.push_back(make_job(std::move(request), logs.back()));
  }
  loaded->instance->execute(jobs);
  for (int32_t i = 0; i < 3; ++i) {
    ASSERT_EQ(logs[i]->responses.size(), 1u);
    EXPECT_TRUE(logs[i]->responses[0].final);
    EXPECT_EQ(values_of<int32_t>(logs[i]->responses[0].outputs.at(0)), (std::vector<int32_t>{i}));
    EXPECT_NE(jobs[i]->times().input_end, 0u);
    EXPECT_NE(jobs[i]->times().output_start, 0u);
  }
}

TEST(identity_backend, rejects_configs_it_cannot_serve) {
  auto no_outputs = make_config("ident", "identity");
  add_input(no_outputs, "INPUT0", inference::TYPE_FP32);
  EXPECT_EQ(load(no_outputs).error().code(), errc::invalid_argument);

  auto extra_output = identity_config(inference::TYPE_FP32);
  add_output(extra_output, "OUTPUT1", inference::TYPE_FP32);
  EXPECT_EQ(load(extra_output).error().code(), errc::invalid_argument);

  auto mismatch = make_config("ident", "identity");
  add_input(mismatch, "INPUT0", inference::TYPE_FP32);
  add_output(mismatch, "OUTPUT0", inference::TYPE_INT32);
  auto error = load(mismatch).error();
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(error.message().find("model 'ident'"), std::string::npos);
  EXPECT_NE(error.message().find("TYPE_INT32"), std::string::npos);
}

TEST(identity_backend, execute_delay_makes_the_model_blocking_and_wait) {
  auto plain = load(identity_config(inference::TYPE_FP32));
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->model->blocking());

  auto config = identity_config(inference::TYPE_FP32);
  set_parameter(config, "execute_delay_ms", "20");
  auto delayed = load(config);
  ASSERT_TRUE(delayed);
  EXPECT_TRUE(delayed->model->blocking());
  inference_request request;
  request.inputs.push_back(make_tensor<float>("INPUT0", data_type::fp32, {1}, {1.f}));
  auto log = std::make_shared<response_log>();
  batch jobs{make_job(std::move(request), log)};
  auto start = std::chrono::steady_clock::now();
  delayed->instance->execute(jobs);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
  ASSERT_EQ(log->responses.size(), 1u);
  EXPECT_TRUE(log->responses[0].error.is_ok());
}

TEST(identity_backend, a_cancelled_batch_returns_early_and_is_answered_cancelled) {
  auto config = identity_config(inference::TYPE_FP32);
  set_parameter(config, "execute_delay_ms", "600000");
  auto loaded = load(config);
  ASSERT_TRUE(loaded);
  inference_request request;
  request.inputs.push_back(make_tensor<float>("INPUT0", data_type::fp32, {1}, {1.f}));
  auto log = std::make_shared<response_log>();
  batch jobs{make_job(std::move(request), log)};
  jobs[0]->cancel();
  auto start = std::chrono::steady_clock::now();
  loaded->instance->execute(jobs);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  ASSERT_EQ(log->responses.size(), 1u);
  EXPECT_EQ(log->responses[0].error, cancelled("request cancelled"));
}

TEST(identity_backend, an_invalid_execute_delay_fails_the_load) {
  auto config = identity_config(inference::TYPE_FP32);
  set_parameter(config, "execute_delay_ms", "-5");
  auto loaded = load(config);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code(), errc::invalid_argument);
  EXPECT_NE(loaded.error().message().find("execute_delay_ms"), std::string::npos);
}
