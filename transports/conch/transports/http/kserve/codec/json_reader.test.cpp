#include <gtest/gtest.h>

#include <string>

#include "conch/transports/http/kserve/codec/json_reader.hpp"

namespace conch::transports::http::kserve::codec {
namespace {

std::string big_object(int members) {
  std::string json = "{";
  for (int i = 0; i < members; ++i) {
    if (i > 0)
      json += ',';
    json += "\"member_with_a_long_name_" + std::to_string(i) + "\":[1,2,3,\"a string long "
            "enough to need its own copy\"]";
  }
  return json + "}";
}

TEST(scratch_document, documents_made_one_after_another_each_see_only_their_own_values) {
  for (int round = 0; round < 3; ++round) {
    scratch_document scratch;
    auto& doc = scratch.doc();
    auto text = "{\"round\":" + std::to_string(round) + "}";
    ASSERT_TRUE(parse_json(text, doc));
    ASSERT_EQ(doc.MemberCount(), 1u);
    EXPECT_EQ(doc["round"].GetInt(), round);
  }
}

TEST(scratch_document, a_document_larger_than_the_block_grows_into_the_heap) {
  scratch_document scratch;
  auto& doc = scratch.doc();
  ASSERT_TRUE(parse_json(big_object(2000), doc));
  EXPECT_EQ(doc.MemberCount(), 2000u);
  EXPECT_EQ(string_of(doc["member_with_a_long_name_1999"][3]),
            "a string long enough to need its own copy");
}

TEST(scratch_document, a_document_made_while_another_lives_keeps_its_values_apart) {
  scratch_document outer;
  ASSERT_TRUE(parse_json(R"({"who":"outer"})", outer.doc()));
  {
    scratch_document inner;
    ASSERT_TRUE(parse_json(big_object(50), inner.doc()));
    EXPECT_EQ(inner.doc().MemberCount(), 50u);
  }
  EXPECT_EQ(string_of(outer.doc()["who"]), "outer");
  // The outer document's blocks are free again once it goes.
}

TEST(scratch_document, deep_nesting_parses_with_the_stack_in_the_pool) {
  std::string json(5000, '[');
  json += std::string(5000, ']');
  scratch_document scratch;
  ASSERT_TRUE(parse_json(json, scratch.doc()));
  EXPECT_TRUE(scratch.doc().IsArray());
}

TEST(scratch_document, a_parse_error_is_reported_and_the_next_parse_works) {
  {
    scratch_document scratch;
    auto st = parse_json("{\"a\":", scratch.doc());
    EXPECT_FALSE(st);
    EXPECT_NE(st.message().find("failed to parse the request JSON buffer"), std::string::npos);
  }
  scratch_document scratch;
  EXPECT_TRUE(parse_json("{\"a\":1}", scratch.doc()));
}

} // namespace
} // namespace conch::transports::http::kserve::codec
