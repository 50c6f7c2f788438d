#include "conch/runtime/backends/add_sub/add_sub_backend.hpp"

#include <limits>

#include <gtest/gtest.h>

#include "conch/runtime/backends/test_support/harness.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::test_support;

namespace {

inference::ModelConfig add_sub_config(inference::DataType type) {
  auto config = make_config("simple", "add_sub");
  add_input(config, "INPUT0", type, {16});
  add_input(config, "INPUT1", type, {16});
  add_output(config, "OUTPUT0", type, {16});
  add_output(config, "OUTPUT1", type, {16});
  return config;
}

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

template <class T>
inference_request request_of(data_type type, const std::vector<T>& a, const std::vector<T>& b) {
  inference_request request;
  request.inputs.push_back(make_tensor<T>("INPUT0", type, {static_cast<int64_t>(a.size())}, a));
  request.inputs.push_back(make_tensor<T>("INPUT1", type, {static_cast<int64_t>(b.size())}, b));
  return request;
}

/// A numeric type of the runtime with its configuration name.
template <class T, data_type Type, inference::DataType Config>
struct numeric {
  using value_type = T;
  static constexpr data_type type = Type;
  static constexpr inference::DataType config = Config;
};

template <class N>
class add_sub_types : public ::testing::Test {};

using all_numeric = ::testing::Types<
  numeric<int8_t, data_type::int8, inference::TYPE_INT8>,
  numeric<int16_t, data_type::int16, inference::TYPE_INT16>,
  numeric<int32_t, data_type::int32, inference::TYPE_INT32>,
  numeric<int64_t, data_type::int64, inference::TYPE_INT64>,
  numeric<uint8_t, data_type::uint8, inference::TYPE_UINT8>,
  numeric<uint16_t, data_type::uint16, inference::TYPE_UINT16>,
  numeric<uint32_t, data_type::uint32, inference::TYPE_UINT32>,
  numeric<uint64_t, data_type::uint64, inference::TYPE_UINT64>,
  numeric<float, data_type::fp32, inference::TYPE_FP32>,
  numeric<double, data_type::fp64, inference::TYPE_FP64>>;

TYPED_TEST_SUITE(add_sub_types, all_numeric);

} // namespace

TYPED_TEST(add_sub_types, adds_and_subtracts_element_wise) {
  using T = typename TypeParam::value_type;
  std::vector<T> a{T(5), T(9), T(100)};
  std::vector<T> b{T(3), T(4), T(27)};
  auto responses = run_one(add_sub_config(TypeParam::config), request_of(TypeParam::type, a, b));
  ASSERT_EQ(responses.size(), 1u);
  ASSERT_TRUE(responses[0].error.is_ok()) << responses[0].error.to_string();
  const auto* sum = output(responses[0], "OUTPUT0");
  const auto* difference = output(responses[0], "OUTPUT1");
  ASSERT_NE(sum, nullptr);
  ASSERT_NE(difference, nullptr);
  EXPECT_EQ(sum->type, TypeParam::type);
  EXPECT_EQ(sum->shape, (shape_type{3}));
  EXPECT_EQ(values_of<T>(*sum), (std::vector<T>{T(8), T(13), T(127)}));
  EXPECT_EQ(values_of<T>(*difference), (std::vector<T>{T(2), T(5), T(73)}));
}

TEST(add_sub_backend, computes_int32_like_tritons_simple_model) {
  std::vector<int32_t> a(16);
  std::vector<int32_t> b(16, 1);
  for (int32_t i = 0; i < 16; ++i)
    a[i] = i;
  a[15] = std::numeric_limits<int32_t>::max();
  auto responses = run_one(add_sub_config(inference::TYPE_INT32), request_of(data_type::int32, a, b));
  ASSERT_EQ(responses.size(), 1u);
  auto sum = values_of<int32_t>(*output(responses[0], "OUTPUT0"));
  auto difference = values_of<int32_t>(*output(responses[0], "OUTPUT1"));
  for (int32_t i = 0; i < 15; ++i) {
    EXPECT_EQ(sum[i], i + 1);
    EXPECT_EQ(difference[i], i - 1);
  }
  // Integers wrap instead of invoking undefined behaviour.
  EXPECT_EQ(sum[15], std::numeric_limits<int32_t>::min());
}

TEST(add_sub_backend, computes_fp32) {
  std::vector<float> a{1.5f, -2.25f, 1e10f};
  std::vector<float> b{0.5f, 0.25f, 1.f};
  auto responses = run_one(add_sub_config(inference::TYPE_FP32), request_of(data_type::fp32, a, b));
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(values_of<float>(*output(responses[0], "OUTPUT0")),
            (std::vector<float>{2.f, -2.f, 1e10f + 1.f}));
  EXPECT_EQ(values_of<float>(*output(responses[0], "OUTPUT1")),
            (std::vector<float>{1.f, -2.5f, 1e10f - 1.f}));
}

TEST(add_sub_backend, inputs_of_different_types_are_invalid) {
  inference_request request;
  request.inputs.push_back(make_tensor<int32_t>("INPUT0", data_type::int32, {1}, {1}));
  request.inputs.push_back(make_tensor<float>("INPUT1", data_type::fp32, {1}, {1.f}));
  auto responses = run_one(add_sub_config(inference::TYPE_INT32), std::move(request));
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].error.code(), errc::invalid_argument);
  EXPECT_NE(responses[0].error.message().find("FP32"), std::string::npos);
  EXPECT_TRUE(responses[0].final);
  EXPECT_TRUE(responses[0].outputs.empty());
}

TEST(add_sub_backend, bad_shapes_sizes_and_types_are_invalid) {
  auto config = add_sub_config(inference::TYPE_INT32);
  auto shapes = run_one(config, request_of<int32_t>(data_type::int32, {1, 2}, {1}));
  EXPECT_EQ(shapes.at(0).error.code(), errc::invalid_argument);

  auto sizes = request_of<int32_t>(data_type::int32, {1, 2}, {1, 2});
  sizes.inputs[1].data = sizes.inputs[1].data.slice(0, 4);
  EXPECT_EQ(run_one(config, std::move(sizes)).at(0).error.code(), errc::invalid_argument);

  // Both inputs agree with each other but not with the model's outputs.
  auto other = run_one(config, request_of<float>(data_type::fp32, {1.f}, {1.f}));
  EXPECT_EQ(other.at(0).error.code(), errc::invalid_argument);

  inference_request missing;
  missing.inputs.push_back(make_tensor<int32_t>("INPUT0", data_type::int32, {1}, {1}));
  EXPECT_EQ(run_one(config, std::move(missing)).at(0).error.code(), errc::invalid_argument);
}

TEST(add_sub_backend, honours_requested_outputs_and_the_request_allocator) {
  auto allocator = std::make_shared<recording_allocator>();
  auto request = request_of<int64_t>(data_type::int64, {10}, {4});
  request.requested_outputs = {"OUTPUT1"};
  request.allocator = allocator;
  auto responses = run_one(add_sub_config(inference::TYPE_INT64), std::move(request));
  ASSERT_EQ(responses.size(), 1u);
  ASSERT_EQ(responses[0].outputs.size(), 1u);
  EXPECT_EQ(responses[0].outputs[0].name, "OUTPUT1");
  EXPECT_EQ(values_of<int64_t>(responses[0].outputs[0]), (std::vector<int64_t>{6}));
  EXPECT_EQ(allocator->names, (std::vector<std::string>{"OUTPUT1"}));
}

TEST(add_sub_backend, rejects_configs_it_cannot_serve) {
  for (auto type : {inference::TYPE_FP16, inference::TYPE_BF16, inference::TYPE_BOOL,
                    inference::TYPE_STRING}) {
    auto loaded = load(add_sub_config(type));
    ASSERT_FALSE(loaded) << type;
    EXPECT_EQ(loaded.error().code(), errc::invalid_argument);
  }

  auto missing = make_config("simple", "add_sub");
  add_input(missing, "INPUT0", inference::TYPE_INT32);
  add_input(missing, "INPUT1", inference::TYPE_INT32);
  add_output(missing, "OUTPUT0", inference::TYPE_INT32);
  auto error = load(missing).error();
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(error.message().find("model 'simple'"), std::string::npos);
  EXPECT_NE(error.message().find("OUTPUT1"), std::string::npos);

  auto converting = add_sub_config(inference::TYPE_INT32);
  converting.mutable_output(1)->set_data_type(inference::TYPE_FP32);
  error = load(converting).error();
  EXPECT_EQ(error.code(), errc::invalid_argument);
  EXPECT_NE(error.message().find("OUTPUT1"), std::string::npos);
}
