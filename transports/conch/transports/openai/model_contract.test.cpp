#include "conch/transports/openai/model_contract.hpp"

#include <string>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

namespace conch::transports::openai {
namespace {

inference::ModelConfig config_of(const std::string& text) {
  inference::ModelConfig c;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &c)) << text;
  return c;
}

const char* const text_io = R"(
  input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
          { name: "stream" data_type: TYPE_BOOL dims: [ 1 ] } ]
  output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] } ]
)";

TEST(model_contract, the_vllm_backend_takes_sampling_parameters) {
  auto c = contract_of(config_of(std::string{"name: \"llm\" backend: \"vllm\" "} + text_io
                                 + "model_transaction_policy { decoupled: true }"));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->style, contract_style::vllm);
  EXPECT_TRUE(c->decoupled);
  EXPECT_FALSE(c->batched);
  EXPECT_FALSE(c->exclude_input);
  EXPECT_FALSE(c->reports_token_counts);
}

TEST(model_contract, a_python_model_with_a_sampling_parameters_input_is_vllm_style) {
  auto c = contract_of(config_of(R"(
    name: "mock" backend: "python"
    input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "sampling_parameters" data_type: TYPE_STRING dims: [ 1 ] optional: true },
            { name: "exclude_input_in_output" data_type: TYPE_BOOL dims: [ 1 ] optional: true } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] },
             { name: "num_input_tokens" data_type: TYPE_UINT32 dims: [ 1 ] },
             { name: "num_output_tokens" data_type: TYPE_UINT32 dims: [ 1 ] } ]
  )"));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->style, contract_style::vllm);
  EXPECT_FALSE(c->decoupled);
  EXPECT_EQ(c->exclude_input, "exclude_input_in_output");
  EXPECT_TRUE(c->reports_token_counts);
}

TEST(model_contract, any_other_model_with_text_in_and_out_takes_tensor_inputs) {
  auto c = contract_of(config_of(std::string{"name: \"bls\" backend: \"python\" max_batch_size: 8 "}
                                 + text_io));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->style, contract_style::tensor_inputs);
  EXPECT_TRUE(c->batched);
  auto ensemble = contract_of(config_of(std::string{"name: \"e\" platform: \"ensemble\" "}
                                        + text_io));
  ASSERT_TRUE(ensemble) << ensemble.error().message();
  EXPECT_EQ(ensemble->style, contract_style::tensor_inputs);
}

TEST(model_contract, a_model_that_breaks_it_is_told_what_is_missing) {
  auto no_input = contract_of(config_of(R"(
    name: "identity" backend: "python"
    input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
    output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
  )"));
  ASSERT_FALSE(no_input);
  EXPECT_EQ(no_input.error().message(),
            "model 'identity' does not follow the OpenAI frontend's model contract: it has no "
            "input 'text_input' (TYPE_STRING) for the prompt");

  auto no_output = contract_of(config_of(R"(
    name: "m" input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]
    output [ { name: "OUTPUT0" data_type: TYPE_STRING dims: [ 1 ] } ]
  )"));
  ASSERT_FALSE(no_output);
  EXPECT_NE(no_output.error().message().find("no output 'text_output'"), std::string::npos);

  auto wrong_type = contract_of(config_of(R"(
    name: "m" input [ { name: "text_input" data_type: TYPE_FP32 dims: [ 1 ] } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ]
  )"));
  ASSERT_FALSE(wrong_type);
  EXPECT_NE(wrong_type.error().message().find("'text_input' must be TYPE_STRING, not TYPE_FP32"),
            std::string::npos);

  auto bad_stream = contract_of(config_of(R"(
    name: "m" input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
                      { name: "stream" data_type: TYPE_INT32 dims: [ 1 ] } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ]
  )"));
  ASSERT_FALSE(bad_stream);
  EXPECT_NE(bad_stream.error().message().find("'stream' must be TYPE_BOOL, not TYPE_INT32"),
            std::string::npos);
}

} // namespace
} // namespace conch::transports::openai
