#include "conch/transports/http/kserve/generate/decode_generate_request.hpp"

#include <string>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "conch/transports/http/kserve/test/post_with_body.hpp"

namespace conch::transports::http::kserve {
namespace {

using runtime::errc;
using test::with_body;

inference::ModelConfig config() {
  inference::ModelConfig c;
  google::protobuf::TextFormat::ParseFromString(R"(
    name: "gen" max_batch_size: 4
    input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] },
            { name: "ids" data_type: TYPE_INT32 dims: [ -1 ] } ]
    output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ])",
                                                &c);
  return c;
}

runtime::result<runtime::inference_request> decode(const std::string& body) {
  return decode_generate_request(with_body(body), config(), "gen", -1);
}

std::string bomb(const std::string& unit) {
  std::string out;
  while (out.size() < (1u << 20))
    out += unit;
  return out;
}

TEST(decode_generate_request, inputs_and_parameters_are_sorted_out) {
  auto r = decode(
    R"({"id":"7","text_input":"hi","parameters":{"ids":[1,2,3],"temperature":0.5},"stream":true})");
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->id, "7");
  ASSERT_EQ(r->inputs.size(), 2u);
  EXPECT_EQ(r->inputs[1].name, "ids");
  EXPECT_EQ(r->inputs[1].shape, (runtime::shape_type{1, 3}));
  ASSERT_EQ(r->parameters.size(), 2u);
  EXPECT_EQ(r->parameters[0].name, "temperature");
  EXPECT_EQ(r->parameters[1].name, "stream");
}

TEST(decode_generate_request, depth_bombs_are_invalid_argument) {
  for (const auto& unit : {std::string{"["}, std::string{"{\"a\":"}}) {
    for (const auto& prefix : {std::string{}, std::string{R"({"text_input":)"},
                               std::string{R"({"parameters":{"p":)"}}) {
      auto r = decode(prefix + bomb(unit));
      ASSERT_FALSE(r);
      EXPECT_EQ(r.error().code(), errc::invalid_argument);
      EXPECT_NE(r.error().message().find("limit of 100 levels"), std::string::npos)
        << r.error().message();
    }
  }
}

TEST(decode_generate_request, values_nested_to_the_limit_are_refused_by_type_not_depth) {
  std::string deep = std::string(98, '[') + std::string(98, ']');
  auto input = decode(R"({"ids":)" + deep + "}");
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().message(), "input 'ids' must be a scalar or a 1-D array");
  auto param = decode(R"({"parameters":{"p":)" + deep + "}}");
  ASSERT_FALSE(param);
  EXPECT_EQ(param.error().code(), errc::invalid_argument);
  EXPECT_NE(param.error().message().find("parameter 'p' has invalid type"), std::string::npos);
}

TEST(decode_generate_request, parameters_are_capped) {
  std::string json = "{";
  for (int i = 0; i < 1025; ++i)
    json += std::string{i == 0 ? "" : ","} + "\"p" + std::to_string(i) + "\":1";
  auto r = decode(json + "}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "the request has 1025 parameters, more than the limit of 1024");
}

TEST(decode_generate_request, an_input_given_twice_is_refused) {
  auto r = decode(R"({"text_input":"a","parameters":{"text_input":"b"}})");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "input 'text_input' is given more than once");
}

} // namespace
} // namespace conch::transports::http::kserve
