#include "conch/transports/openai/build_request.hpp"

#include <cstring>
#include <string>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::transports::openai {
namespace {

inference::ModelConfig config_of(const std::string& text) {
  inference::ModelConfig c;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &c)) << text;
  return c;
}

std::string string_of(const runtime::tensor& t) {
  auto e = runtime::split_bytes_elements(t.data.data(), t.data.size());
  EXPECT_TRUE(e);
  EXPECT_EQ(e->size(), 1u);
  return std::string{(*e)[0]};
}

template <class T>
T scalar_of(const runtime::tensor& t) {
  T v{};
  EXPECT_EQ(t.data.size(), sizeof(T)) << t.name;
  std::memcpy(&v, t.data.data(), sizeof(T));
  return v;
}

TEST(build_request, the_vllm_convention_sends_the_settings_as_json) {
  auto config = config_of(R"(
    name: "llm" backend: "vllm" model_transaction_policy { decoupled: true }
    input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "stream" data_type: TYPE_BOOL dims: [ 1 ] },
            { name: "sampling_parameters" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "exclude_input_in_output" data_type: TYPE_BOOL dims: [ 1 ] },
            { name: "return_num_output_tokens" data_type: TYPE_BOOL dims: [ 1 ] } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] } ])");
  auto contract = contract_of(config);
  ASSERT_TRUE(contract);
  generation_settings s;
  s.temperature = 0.5;
  s.stop = {"a", "b"};
  s.seed = 3;
  s.echo = true;
  s.stream = true;
  auto r = build_generate_request(config, *contract, "the prompt", s, 16);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->model_name, "llm");
  ASSERT_NE(r->input("text_input"), nullptr);
  EXPECT_EQ(string_of(*r->input("text_input")), "the prompt");
  EXPECT_EQ(r->input("text_input")->shape, (runtime::shape_type{1}));
  EXPECT_EQ(scalar_of<uint8_t>(*r->input("stream")), 1);
  EXPECT_EQ(scalar_of<uint8_t>(*r->input("exclude_input_in_output")), 0);
  EXPECT_EQ(scalar_of<uint8_t>(*r->input("return_num_output_tokens")), 1);
  EXPECT_EQ(r->input("return_num_input_tokens"), nullptr);  // not declared
  auto params = string_of(*r->input("sampling_parameters"));
  for (const char* part : {R"("temperature":0.5)", R"("stop":["a","b"])", R"("seed":3)",
                           R"("max_tokens":16)", R"("n":1)"})
    EXPECT_NE(params.find(part), std::string::npos) << part << " in " << params;
}

TEST(build_request, the_tensor_convention_types_each_declared_setting) {
  auto config = config_of(R"(
    name: "trt" max_batch_size: 8
    input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "max_tokens" data_type: TYPE_INT32 dims: [ 1 ] },
            { name: "temperature" data_type: TYPE_FP32 dims: [ 1 ] optional: true },
            { name: "stop_words" data_type: TYPE_STRING dims: [ -1 ] optional: true },
            { name: "random_seed" data_type: TYPE_UINT64 dims: [ 1 ] optional: true } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] } ])");
  auto contract = contract_of(config);
  ASSERT_TRUE(contract);
  generation_settings s;
  s.max_tokens = 7;
  s.temperature = 0.25;
  s.top_p = 0.5;  // not declared: not sent
  s.stop = {"x", "yy"};
  s.seed = 11;
  auto r = build_generate_request(config, *contract, "p", s, 16);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->input("text_input")->shape, (runtime::shape_type{1, 1}));
  EXPECT_EQ(scalar_of<int32_t>(*r->input("max_tokens")), 7);
  EXPECT_EQ(scalar_of<float>(*r->input("temperature")), 0.25f);
  EXPECT_EQ(r->input("top_p"), nullptr);
  EXPECT_EQ(r->input("stream"), nullptr);
  EXPECT_EQ(r->input("stop_words")->shape, (runtime::shape_type{1, 2}));
  EXPECT_EQ(scalar_of<uint64_t>(*r->input("random_seed")), 11u);
}

TEST(build_request, the_tensor_convention_refuses_what_it_cannot_carry) {
  auto config = config_of(R"(
    name: "py"
    input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "seed" data_type: TYPE_UINT64 dims: [ 1 ] } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ])");
  auto contract = contract_of(config);
  ASSERT_TRUE(contract);
  generation_settings s;
  s.seed = -1;
  auto r = build_generate_request(config, *contract, "p", s, 16);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "seed must be non-negative");
  generation_settings l;
  l.logprobs = 1;
  r = build_generate_request(config, *contract, "p", l, 16);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "logprobs are currently available only for the vLLM backend");
}

} // namespace
} // namespace conch::transports::openai
