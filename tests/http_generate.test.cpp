// The generate extension over the KServe HTTP frontend: /generate answers
// one JSON object, /generate_stream server-sent events, decoupled models
// included.

#include <string>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "support/http_fixture.hpp"

namespace conch::tests {
namespace {

using transports::http::test::field;

std::string numbers(int n, int base = 0) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += (i ? "," : "") + std::to_string(base + i);
  return out;
}

class http_generate : public http_fixture {
 protected:
  void SetUp() override { start_all(); }

  void expect_error(const std::optional<raw_response>& r, int status, const std::string& message) {
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, status) << r->body;
    EXPECT_EQ(field(*r, "Content-Type"), "application/json");
    EXPECT_EQ(r->body, R"({"error":")" + message + R"("})");
  }
};

TEST_F(http_generate, inputs_by_name_and_outputs_as_fields) {
  auto r = call("POST", "/v2/models/identity_fp32/generate",
                R"({"id":"g1","INPUT0":[)" + numbers(16) + "]}");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(field(*r, "Content-Type"), "application/json");
  rapidjson::Document d;
  d.Parse(r->body.c_str());
  ASSERT_FALSE(d.HasParseError()) << r->body;
  EXPECT_STREQ(d["id"].GetString(), "g1");
  EXPECT_STREQ(d["model_name"].GetString(), "identity_fp32");
  EXPECT_STREQ(d["model_version"].GetString(), "1");
  ASSERT_TRUE(d["OUTPUT0"].IsArray());
  ASSERT_EQ(d["OUTPUT0"].Size(), 16u);
  for (unsigned i = 0; i < 16; ++i)
    EXPECT_EQ(d["OUTPUT0"][i].GetDouble(), static_cast<double>(i));
}

TEST_F(http_generate, inputs_in_parameters_and_other_keys_as_parameters) {
  auto sum = call("POST", "/v2/models/simple/versions/1/generate",
                  R"({"INPUT0":[)" + numbers(16) + R"(],"parameters":{"INPUT1":[)"
                    + numbers(16, 10) + R"(],"temperature":0.5,"stream":false},"text":"x"})");
  ASSERT_TRUE(sum);
  ASSERT_EQ(sum->status, 200) << sum->body;
  rapidjson::Document d;
  d.Parse(sum->body.c_str());
  ASSERT_FALSE(d.HasParseError()) << sum->body;
  EXPECT_FALSE(d.HasMember("id"));
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(d["OUTPUT0"][i].GetInt(), static_cast<int>(2 * i + 10));
    EXPECT_EQ(d["OUTPUT1"][i].GetInt(), -10);
  }
}

TEST_F(http_generate, a_decoupled_model_with_one_response) {
  auto r = call("POST", "/v2/models/repeat_int32/generate", R"({"IN":7})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body, R"({"model_name":"repeat_int32","model_version":"1","OUT":7,"IDX":0})");
}

TEST_F(http_generate, generate_refuses_several_responses) {
  expect_error(call("POST", "/v2/models/repeat_int32/generate", R"({"IN":[1,2,3]})"), 500,
               "generate expects model to produce exactly 1 response, use generate stream for "
               "model that generates various number of responses");
  expect_error(call("POST", "/v2/models/repeat_int32/generate", R"({"IN":[]})"), 500,
               "generate expects model to produce exactly 1 response, use generate stream for "
               "model that generates various number of responses");
}

TEST_F(http_generate, stream_of_a_decoupled_model) {
  auto r = call("POST", "/v2/models/repeat_int32/generate_stream", R"({"id":"s","IN":[4,5,6]})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(field(*r, "Content-Type"), "text/event-stream; charset=utf-8");
  EXPECT_TRUE(r->chunked);
  const std::string head = R"(data: {"id":"s","model_name":"repeat_int32","model_version":"1",)";
  EXPECT_EQ(r->body, head + R"("OUT":4,"IDX":0})" + "\n\n" + head + R"("OUT":5,"IDX":1})"
                       + "\n\n" + head + R"("OUT":6,"IDX":2})" + "\n\n");
}

TEST_F(http_generate, stream_of_one_response_and_of_none) {
  auto one = call("POST", "/v2/models/simple/generate_stream",
                  R"({"INPUT0":[)" + numbers(16) + R"(],"INPUT1":[)" + numbers(16) + "]}");
  ASSERT_TRUE(one);
  ASSERT_EQ(one->status, 200) << one->body;
  EXPECT_EQ(one->body.rfind("data: {\"model_name\":\"simple\"", 0), 0u) << one->body;
  EXPECT_EQ(one->body.find("data: ", 1), std::string::npos) << one->body;
  EXPECT_EQ(one->body.substr(one->body.size() - 2), "\n\n");
  auto none = call("POST", "/v2/models/repeat_int32/generate_stream", R"({"IN":[]})");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 200) << none->body;
  EXPECT_EQ(none->body, "");
}

TEST_F(http_generate, errors_before_the_stream_are_plain_replies) {
  for (auto endpoint : {"generate", "generate_stream"}) {
    auto path = [&](const std::string& model) {
      return "/v2/models/" + model + "/" + endpoint;
    };
    auto unknown = call("POST", path("nope"), R"({"IN":1})");
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->status, 404) << unknown->body;
    EXPECT_EQ(field(*unknown, "Content-Type"), "application/json");
    auto bad_json = call("POST", path("repeat_int32"), R"({"IN":)");
    ASSERT_TRUE(bad_json);
    EXPECT_EQ(bad_json->status, 400) << bad_json->body;
    expect_error(call("POST", path("repeat_int32"), R"({"IN":[[1,2]]})"), 400,
                 "input 'IN' must be a scalar or a 1-D array");
    expect_error(call("POST", path("repeat_int32"), R"({"IN":{"a":1}})"), 400,
                 "input 'IN' must be a scalar or a 1-D array");
    expect_error(call("POST", path("repeat_int32"), R"({"IN":[1],"parameters":{"IN":[2]}})"),
                 400, "input 'IN' is given more than once");
    auto wrong_type = call("POST", path("repeat_int32"), R"({"IN":["seven"]})");
    ASSERT_TRUE(wrong_type);
    EXPECT_EQ(wrong_type->status, 400) << wrong_type->body;
    auto reserved = call("POST", path("repeat_int32"), R"({"IN":[1],"triton_x":1})");
    ASSERT_TRUE(reserved);
    EXPECT_EQ(reserved->status, 400) << reserved->body;
    // A missing input is found by the server: still a plain error reply.
    auto missing = call("POST", path("simple"), R"({"INPUT0":[)" + numbers(16) + "]}");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 400) << missing->body;
    EXPECT_EQ(field(*missing, "Content-Type"), "application/json");
    auto compressed = call("POST", path("repeat_int32"), R"({"IN":[1]})",
                           "Content-Encoding: identity\r\n");
    ASSERT_TRUE(compressed);
    EXPECT_EQ(compressed->status, 200) << compressed->body;
  }
}

} // namespace
} // namespace conch::tests
