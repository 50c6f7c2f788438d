#include "conch/transports/http/kserve/codec/json_policy.hpp"

#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace conch::transports::http::kserve::codec {
namespace {

using runtime::errc;

std::string arrays(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string objects(int depth) {
  std::string json;
  for (int i = 1; i < depth; ++i)
    json += "{\"a\":";
  return json + "{}" + std::string(depth - 1, '}');
}

// A bomb: `unit` repeated to about 1 MiB, never closed.
std::string bomb(const std::string& unit) {
  std::string json;
  while (json.size() < (1u << 20))
    json += unit;
  return json;
}

TEST(json_policy, nesting_up_to_the_limit_parses) {
  rapidjson::Document doc;
  ASSERT_TRUE(parse_json(arrays(max_json_depth), doc));
  EXPECT_TRUE(doc.IsArray());
  ASSERT_TRUE(parse_json(objects(max_json_depth), doc));
  EXPECT_TRUE(doc.IsObject());
  EXPECT_TRUE(doc["a"].IsObject());
}

TEST(json_policy, one_level_more_is_invalid_argument_naming_the_limit) {
  // The offset is that of the opening bracket one level too deep.
  for (const auto& [json, offset] : {std::pair{arrays(max_json_depth + 1), 100},
                                     std::pair{objects(max_json_depth + 1), 500}}) {
    rapidjson::Document doc;
    auto st = parse_json(json, doc);
    EXPECT_EQ(st.code(), errc::invalid_argument);
    EXPECT_EQ(st.message(), "failed to parse the request JSON buffer: arrays and objects nest "
                            "deeper than the limit of 100 levels at "
                              + std::to_string(offset));
  }
}

TEST(json_policy, megabyte_depth_bombs_are_refused_without_crashing) {
  for (const auto& unit : {std::string{"["}, std::string{"{\"a\":"}, std::string{"[{\"a\":"}}) {
    rapidjson::Document doc;
    auto st = parse_json(bomb(unit), doc);
    EXPECT_EQ(st.code(), errc::invalid_argument) << unit;
    EXPECT_NE(st.message().find("limit of 100 levels"), std::string::npos) << st.message();
  }
}

TEST(json_policy, wide_documents_are_not_limited) {
  std::string json = "[";
  for (int i = 0; i < 100000; ++i)
    json += i == 0 ? "[]" : ",[]";
  json += "]";
  rapidjson::Document doc;
  ASSERT_TRUE(parse_json(json, doc));
  EXPECT_EQ(doc.Size(), 100000u);
}

TEST(json_policy, other_errors_keep_rapidjsons_text_and_offset) {
  rapidjson::Document doc;
  auto st = parse_json(R"({"inputs":[)", doc);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "failed to parse the request JSON buffer: Invalid value. at 11");
  EXPECT_EQ(parse_json("", doc).message(),
            "failed to parse the request JSON buffer: The document is empty. at 0");
}

TEST(json_policy, nan_and_infinity_are_numbers) {
  rapidjson::Document doc;
  ASSERT_TRUE(parse_json("[NaN,Infinity,-Infinity]", doc));
  EXPECT_TRUE(doc[0].IsDouble());
  EXPECT_TRUE(doc[2].GetDouble() < 0);
}

TEST(json_policy, a_failed_parse_leaves_the_document_as_it_was) {
  rapidjson::Document doc;
  ASSERT_TRUE(parse_json(R"({"kept":true})", doc));
  EXPECT_FALSE(parse_json(arrays(max_json_depth + 1), doc));
  ASSERT_TRUE(doc.IsObject());
  EXPECT_TRUE(doc["kept"].GetBool());
}

TEST(json_policy, text_need_not_end_in_nul) {
  std::string text = R"({"a":1}garbage)";
  rapidjson::Document doc;
  ASSERT_TRUE(parse_json(std::string_view{text}.substr(0, 7), doc));
  EXPECT_EQ(doc["a"].GetInt(), 1);
}

} // namespace
} // namespace conch::transports::http::kserve::codec
