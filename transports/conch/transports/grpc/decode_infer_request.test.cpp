#include "conch/transports/grpc/decode_infer_request.hpp"

#include <cstring>
#include <functional>
#include <string>

#include <gtest/gtest.h>

namespace conch::transports::grpc {
namespace {

using runtime::errc;

inference::ModelInferRequest::InferInputTensor* add_input(inference::ModelInferRequest& m,
                                                          const std::string& name,
                                                          const std::string& type,
                                                          std::vector<int64_t> shape) {
  auto* in = m.add_inputs();
  in->set_name(name);
  in->set_datatype(type);
  for (auto d : shape)
    in->add_shape(d);
  return in;
}

std::string raw_int32(std::vector<int32_t> values) {
  std::string s(values.size() * 4, '\0');
  std::memcpy(s.data(), values.data(), s.size());
  return s;
}

std::vector<int32_t> int32_data(const runtime::tensor& t) {
  std::vector<int32_t> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

TEST(decode_infer_request, raw_contents_follow_input_order_skipping_shared_memory) {
  inference::ModelInferRequest m;
  m.set_model_name("simple");
  m.set_id("7");
  add_input(m, "A", "INT32", {2});
  auto* shm = add_input(m, "S", "INT32", {2});
  (*shm->mutable_parameters())["shared_memory_region"].set_string_param("r");
  (*shm->mutable_parameters())["shared_memory_byte_size"].set_int64_param(8);
  (*shm->mutable_parameters())["shared_memory_offset"].set_int64_param(16);
  add_input(m, "B", "INT32", {2});
  *m.add_raw_input_contents() = raw_int32({1, 2});
  *m.add_raw_input_contents() = raw_int32({3, 4});
  auto d = decode_infer_request(m, 3);
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->request.model_name, "simple");
  EXPECT_EQ(d->request.model_version, 3);
  EXPECT_EQ(d->request.id, "7");
  ASSERT_EQ(d->request.inputs.size(), 3u);
  EXPECT_EQ(int32_data(d->request.inputs[0]), (std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(d->request.inputs[1].data.empty());
  EXPECT_EQ(int32_data(d->request.inputs[2]), (std::vector<int32_t>{3, 4}));
  ASSERT_EQ(d->shared_memory_inputs.size(), 1u);
  EXPECT_EQ(d->shared_memory_inputs[0].first, 1u);
  EXPECT_EQ(d->shared_memory_inputs[0].second.region, "r");
  EXPECT_EQ(d->shared_memory_inputs[0].second.offset, 16u);
  EXPECT_EQ(d->shared_memory_inputs[0].second.byte_size, 8u);
}

TEST(decode_infer_request, outputs_carry_shared_memory_and_classification) {
  inference::ModelInferRequest m;
  auto* a = m.add_outputs();
  a->set_name("A");
  (*a->mutable_parameters())["shared_memory_region"].set_string_param("out");
  (*a->mutable_parameters())["shared_memory_byte_size"].set_int64_param(64);
  auto* b = m.add_outputs();
  b->set_name("B");
  (*b->mutable_parameters())["classification"].set_int64_param(3);
  m.add_outputs()->set_name("C");
  auto d = decode_infer_request(m, -1);
  ASSERT_TRUE(d) << d.error().to_string();
  ASSERT_EQ(d->outputs.size(), 3u);
  ASSERT_TRUE(d->outputs[0].shared_memory);
  EXPECT_EQ(d->outputs[0].shared_memory->region, "out");
  EXPECT_EQ(d->outputs[0].shared_memory->offset, 0u);
  EXPECT_EQ(d->outputs[0].shared_memory->byte_size, 64u);
  EXPECT_EQ(d->outputs[1].classification, 3u);
  EXPECT_FALSE(d->outputs[2].shared_memory);
  EXPECT_EQ(d->request.requested_outputs, (std::vector<std::string>{"A", "B", "C"}));
}

TEST(decode_infer_request, bad_tensor_parameters_are_invalid) {
  auto error_of = [](const std::function<void(inference::ModelInferRequest&)>& build) {
    inference::ModelInferRequest m;
    build(m);
    auto d = decode_infer_request(m, -1);
    EXPECT_FALSE(d);
    return d ? std::string{} : d.error().message();
  };
  EXPECT_EQ(error_of([](auto& m) {
              auto* in = add_input(m, "S", "INT32", {2});
              (*in->mutable_parameters())["shared_memory_region"].set_string_param("r");
            }),
            "input 'S': 'shared_memory_byte_size' is missing, required when "
            "'shared_memory_region' is specified");
  EXPECT_EQ(error_of([](auto& m) {
              auto* in = add_input(m, "S", "INT32", {2});
              (*in->mutable_parameters())["shared_memory_region"].set_int64_param(1);
            }),
            "input 'S': invalid value type for 'shared_memory_region' parameter, expected "
            "string_param");
  EXPECT_EQ(error_of([](auto& m) {
              auto* in = add_input(m, "S", "INT32", {2});
              (*in->mutable_parameters())["shared_memory_region"].set_string_param("r");
              (*in->mutable_parameters())["shared_memory_byte_size"].set_string_param("8");
            }),
            "input 'S': invalid value type for 'shared_memory_byte_size' parameter, expected "
            "int64_param");
  EXPECT_EQ(error_of([](auto& m) {
              auto* o = m.add_outputs();
              o->set_name("O");
              (*o->mutable_parameters())["classification"].set_int64_param(0);
            }),
            "output 'O': invalid value for 'classification' parameter, expected a value > 0");
  EXPECT_EQ(error_of([](auto& m) {
              auto* o = m.add_outputs();
              o->set_name("O");
              (*o->mutable_parameters())["classification"].set_int64_param(2);
              (*o->mutable_parameters())["shared_memory_region"].set_string_param("r");
              (*o->mutable_parameters())["shared_memory_byte_size"].set_int64_param(8);
            }),
            "output 'O' can't set both 'shared_memory_region' and 'classification'");
}

TEST(decode_infer_request, typed_contents_are_packed) {
  inference::ModelInferRequest m;
  auto* a = add_input(m, "A", "INT16", {3});
  for (int v : {-1, 2, 300})
    a->mutable_contents()->add_int_contents(v);
  auto* s = add_input(m, "S", "BYTES", {2});
  s->mutable_contents()->add_bytes_contents("hi");
  s->mutable_contents()->add_bytes_contents("");
  auto d = decode_infer_request(m, -1);
  ASSERT_TRUE(d) << d.error().to_string();
  const auto& t = d->request.inputs[0].data;
  ASSERT_EQ(t.size(), 6u);
  int16_t v[3];
  std::memcpy(v, t.data(), 6);
  EXPECT_EQ(v[0], -1);
  EXPECT_EQ(v[2], 300);
  const auto& b = d->request.inputs[1].data;
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.data()), b.size()),
            std::string("\x02\0\0\0hi\0\0\0\0", 10));
}

TEST(decode_infer_request, request_parameters_set_fields) {
  inference::ModelInferRequest m;
  auto& p = *m.mutable_parameters();
  p["sequence_id"].set_int64_param(9);
  p["sequence_start"].set_bool_param(true);
  p["priority"].set_uint64_param(2);
  p["triton_enable_empty_final_response"].set_bool_param(true);
  p["custom"].set_string_param("x");
  auto d = decode_infer_request(m, -1);
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(std::get<uint64_t>(d->request.correlation_id), 9u);
  EXPECT_EQ(d->request.flags, runtime::request_sequence_start);
  EXPECT_EQ(d->request.priority, 2u);
  ASSERT_EQ(d->request.parameters.size(), 1u);
  EXPECT_EQ(d->request.parameters[0].name, "custom");
}

TEST(decode_infer_request, bad_requests_are_invalid_arguments) {
  auto expect_error = [](inference::ModelInferRequest m, const std::string& message) {
    auto d = decode_infer_request(m, -1);
    ASSERT_FALSE(d) << message;
    EXPECT_EQ(d.error().code(), errc::invalid_argument);
    EXPECT_NE(d.error().message().find(message), std::string::npos) << d.error().message();
  };
  inference::ModelInferRequest wrong_size;
  add_input(wrong_size, "A", "INT32", {4});
  *wrong_size.add_raw_input_contents() = raw_int32({1});
  expect_error(wrong_size, "'A'");
  inference::ModelInferRequest missing;
  add_input(missing, "A", "INT32", {1});
  add_input(missing, "B", "INT32", {1});
  *missing.add_raw_input_contents() = raw_int32({1});
  expect_error(missing, "unable to find data for input tensor 'B'");
  inference::ModelInferRequest mixed;
  add_input(mixed, "A", "INT32", {1})->mutable_contents()->add_int_contents(1);
  *mixed.add_raw_input_contents() = raw_int32({1});
  expect_error(mixed, "contents field must not be specified");
  inference::ModelInferRequest extra;
  add_input(extra, "A", "INT32", {1});
  *extra.add_raw_input_contents() = raw_int32({1});
  *extra.add_raw_input_contents() = raw_int32({1});
  expect_error(extra, "raw_input_contents");
  inference::ModelInferRequest fp16;
  add_input(fp16, "A", "FP16", {1})->mutable_contents()->add_fp32_contents(1);
  expect_error(fp16, "raw_input_contents");
  inference::ModelInferRequest bad_type;
  add_input(bad_type, "A", "FLOAT", {1});
  expect_error(bad_type, "invalid datatype for input A");
  inference::ModelInferRequest reserved;
  (*reserved.mutable_parameters())["triton_x"].set_bool_param(true);
  expect_error(reserved, "reserved");
  inference::ModelInferRequest count;
  add_input(count, "A", "FP32", {2})->mutable_contents()->add_fp32_contents(1);
  expect_error(count, "expected 2, got 1");
}

// 200,000 uniquely named inputs once held a thread for seconds in pairwise
// name checks; the count is refused before any input is decoded.
TEST(decode_infer_request, inputs_past_the_limit_are_refused) {
  inference::ModelInferRequest m;
  for (int i = 0; i < 200000; ++i)
    add_input(m, "in_" + std::to_string(i), "INT32", {0});
  auto d = decode_infer_request(m, -1);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().code(), errc::invalid_argument);
  EXPECT_EQ(d.error().message(), "the request has 200000 inputs, more than the limit of 4096");
}

TEST(decode_infer_request, duplicates_among_many_inputs_and_outputs_are_found) {
  inference::ModelInferRequest inputs;
  for (int i = 0; i < 4000; ++i)
    add_input(inputs, "in_" + std::to_string(i), "INT32", {0});
  EXPECT_TRUE(decode_infer_request(inputs, -1));
  add_input(inputs, "in_1234", "INT32", {0});
  auto in = decode_infer_request(inputs, -1);
  ASSERT_FALSE(in);
  EXPECT_EQ(in.error().code(), errc::invalid_argument);
  EXPECT_EQ(in.error().message(), "input 'in_1234' already exists in request");
  inference::ModelInferRequest outputs;
  for (int i = 0; i < 4000; ++i)
    outputs.add_outputs()->set_name("out_" + std::to_string(i));
  EXPECT_TRUE(decode_infer_request(outputs, -1));
  // Named twice: requested once, with the first settings, as Triton takes it.
  outputs.add_outputs()->set_name("out_42");
  outputs.mutable_outputs(4000)->mutable_parameters()->operator[]("classification")
    .set_int64_param(3);
  auto out = decode_infer_request(outputs, -1);
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ(out->outputs.size(), 4000u);
  EXPECT_EQ(out->request.requested_outputs.size(), 4000u);
  EXPECT_EQ(out->outputs[42].name, "out_42");
  EXPECT_EQ(out->outputs[42].classification, 0u);
}

TEST(decode_infer_request, outputs_and_parameters_past_their_limits_are_refused) {
  inference::ModelInferRequest outputs;
  for (int i = 0; i < 4097; ++i)
    outputs.add_outputs()->set_name("out_" + std::to_string(i));
  EXPECT_EQ(decode_infer_request(outputs, -1).error().message(),
            "the request has 4097 outputs, more than the limit of 4096");
  inference::ModelInferRequest params;
  for (int i = 0; i < 1025; ++i)
    (*params.mutable_parameters())["p" + std::to_string(i)].set_bool_param(true);
  EXPECT_EQ(decode_infer_request(params, -1).error().message(),
            "the request has 1025 parameters, more than the limit of 1024");
  inference::ModelInferRequest input_params;
  auto* in = add_input(input_params, "A", "INT32", {0});
  for (int i = 0; i < 1025; ++i)
    (*in->mutable_parameters())["p" + std::to_string(i)].set_bool_param(true);
  EXPECT_EQ(decode_infer_request(input_params, -1).error().message(),
            "input 'A' has 1025 parameters, more than the limit of 1024");
  inference::ModelInferRequest output_params;
  auto* o = output_params.add_outputs();
  o->set_name("O");
  for (int i = 0; i < 1025; ++i)
    (*o->mutable_parameters())["p" + std::to_string(i)].set_bool_param(true);
  EXPECT_EQ(decode_infer_request(output_params, -1).error().message(),
            "output 'O' has 1025 parameters, more than the limit of 1024");
}

} // namespace
} // namespace conch::transports::grpc
