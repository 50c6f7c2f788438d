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
    ASSERT_TRUE(scratch.parse(text));
    ASSERT_EQ(doc.MemberCount(), 1u);
    EXPECT_EQ(doc["round"].GetInt(), round);
  }
}

TEST(scratch_document, a_document_larger_than_the_block_grows_into_the_heap) {
  scratch_document scratch;
  auto& doc = scratch.doc();
  ASSERT_TRUE(scratch.parse(big_object(2000)));
  EXPECT_EQ(doc.MemberCount(), 2000u);
  EXPECT_EQ(string_of(doc["member_with_a_long_name_1999"][3]),
            "a string long enough to need its own copy");
}

TEST(scratch_document, a_document_made_while_another_lives_keeps_its_values_apart) {
  scratch_document outer;
  ASSERT_TRUE(outer.parse(R"({"who":"outer"})"));
  {
    scratch_document inner;
    ASSERT_TRUE(inner.parse(big_object(50)));
    EXPECT_EQ(inner.doc().MemberCount(), 50u);
  }
  EXPECT_EQ(string_of(outer.doc()["who"]), "outer");
  // The outer document's blocks are free again once it goes.
}

TEST(scratch_document, nesting_to_the_limit_parses_with_the_stack_in_the_pool) {
  std::string json(max_json_depth, '[');
  json += std::string(max_json_depth, ']');
  scratch_document scratch;
  ASSERT_TRUE(scratch.parse(json));
  EXPECT_TRUE(scratch.doc().IsArray());
}

TEST(scratch_document, nesting_past_the_limit_is_refused) {
  scratch_document scratch;
  auto st = scratch.parse(std::string(1 << 20, '['));
  EXPECT_EQ(st.code(), runtime::errc::invalid_argument);
  EXPECT_NE(st.message().find("limit of 100"), std::string::npos) << st.message();
  // The document is left usable, and the next parse in the pool works.
  ASSERT_TRUE(scratch.parse(R"({"a":1})"));
  EXPECT_EQ(scratch.doc()["a"].GetInt(), 1);
}

TEST(scratch_document, a_parse_error_is_reported_and_the_next_parse_works) {
  {
    scratch_document scratch;
    auto st = scratch.parse("{\"a\":");
    EXPECT_FALSE(st);
    EXPECT_NE(st.message().find("failed to parse the request JSON buffer"), std::string::npos);
  }
  scratch_document scratch;
  EXPECT_TRUE(scratch.parse("{\"a\":1}"));
}

} // namespace
} // namespace conch::transports::http::kserve::codec
