// What bounds the work of decoding one infer body: its nesting depth, its
// number of inputs, outputs and parameters, and duplicate names found in
// linear time.
#include <string>

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/codec/decode_infer_request.hpp"
#include "conch/transports/http/kserve/codec/encode_error.hpp"
#include "conch/transports/http/kserve/codec/test/codec_test_util.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::errc;

runtime::status decode_error(const std::string& json) {
  auto req = test::make_request(json);
  auto r = decode_infer_request(*req, "m", -1);
  EXPECT_FALSE(r) << json.substr(0, 200);
  return r ? runtime::status::ok() : r.error();
}

std::string repeated(const std::string& unit, size_t bytes) {
  std::string out;
  while (out.size() < bytes)
    out += unit;
  return out;
}

std::string input(const std::string& name) {
  return R"({"name":")" + name + R"(","shape":[1],"datatype":"INT32","data":[1]})";
}

std::string inputs(size_t count) {
  std::string json = R"({"inputs":[)";
  for (size_t i = 0; i < count; ++i)
    json += (i == 0 ? "" : ",") + input("in_" + std::to_string(i));
  return json + "]}";
}

TEST(decode_limits, megabyte_depth_bombs_are_400) {
  for (const auto& unit : {std::string{"["}, std::string{"{\"a\":"}}) {
    for (const auto& prefix : {std::string{}, std::string{R"({"inputs":[{"data":)"}}) {
      auto st = decode_error(prefix + repeated(unit, 1 << 20));
      EXPECT_EQ(st.code(), errc::invalid_argument);
      EXPECT_NE(st.message().find("limit of 100 levels"), std::string::npos) << st.message();
      EXPECT_EQ(encode_error(st).status, 400);
    }
  }
}

TEST(decode_limits, data_nested_to_the_documents_limit_decodes) {
  // The document's own levels ({, inputs [, the input {) leave 97 for data.
  std::string data = std::string(97, '[') + "7" + std::string(97, ']');
  auto json = R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","data":)" + data + "}]}";
  auto req = test::make_request(json);
  auto r = decode_infer_request(*req, "m", -1);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(test::values_of<int32_t>(r->request.inputs[0].data), std::vector<int32_t>{7});
}

TEST(decode_limits, inputs_up_to_the_limit_decode) {
  auto req = test::make_request(inputs(4096));
  auto r = decode_infer_request(*req, "m", -1);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->request.inputs.size(), 4096u);
}

TEST(decode_limits, two_hundred_thousand_inputs_are_refused_by_the_cap) {
  auto st = decode_error(inputs(200000));
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "the request has 200000 inputs, more than the limit of 4096");
}

TEST(decode_limits, a_duplicate_among_many_inputs_is_found) {
  auto json = inputs(4000);
  json.insert(json.size() - 2, "," + input("in_1234"));
  auto st = decode_error(json);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "input 'in_1234' already exists in request");
}

TEST(decode_limits, outputs_are_capped_and_duplicates_found) {
  std::string many = R"({"inputs":[],"outputs":[)";
  for (int i = 0; i < 5000; ++i)
    many += std::string{i == 0 ? "" : ","} + R"({"name":"o)" + std::to_string(i) + "\"}";
  auto st = decode_error(many + "]}");
  EXPECT_EQ(st.message(), "the request has 5000 outputs, more than the limit of 4096");
  std::string twice = R"({"inputs":[],"outputs":[)";
  for (int i = 0; i < 100; ++i)
    twice += R"({"name":"o)" + std::to_string(i) + "\"},";
  twice += R"({"name":"o42"}]})";
  // Named twice: requested once, as Triton takes it.
  auto req = test::make_request(twice);
  auto r = decode_infer_request(*req, "m", -1);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->outputs.size(), 100u);
  EXPECT_EQ(r->request.requested_outputs.size(), 100u);
}

std::string parameters(int count) {
  std::string json = "{";
  for (int i = 0; i < count; ++i)
    json += std::string{i == 0 ? "" : ","} + "\"p" + std::to_string(i) + "\":1";
  return json + "}";
}

TEST(decode_limits, each_parameters_object_is_capped) {
  auto request = decode_error(R"({"inputs":[],"parameters":)" + parameters(1025) + "}");
  EXPECT_EQ(request.message(), "the request has 1025 parameters, more than the limit of 1024");
  auto in = decode_error(
    R"({"inputs":[{"name":"A","shape":[1],"datatype":"INT32","data":[1],"parameters":)"
    + parameters(1025) + "}]}");
  EXPECT_EQ(in.message(), "input 'A' has 1025 parameters, more than the limit of 1024");
  auto out = decode_error(R"({"inputs":[],"outputs":[{"name":"O","parameters":)"
                          + parameters(1025) + "}]}");
  EXPECT_EQ(out.message(), "output 'O' has 1025 parameters, more than the limit of 1024");
  auto req = test::make_request(R"({"inputs":[],"parameters":)" + parameters(1024) + "}");
  auto r = decode_infer_request(*req, "m", -1);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_EQ(r->request.parameters.size(), 1024u);
}

} // namespace
} // namespace conch::transports::http::kserve::codec
