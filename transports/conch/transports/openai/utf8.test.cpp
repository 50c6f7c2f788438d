#include "conch/transports/openai/utf8.hpp"

#include <gtest/gtest.h>

namespace conch::transports::openai {
namespace {

TEST(utf8, tells_well_formed_text_from_ill_formed) {
  EXPECT_TRUE(valid_utf8("plain"));
  EXPECT_TRUE(valid_utf8("\xE2\x82\xAC \xF0\x9F\x98\x80"));
  for (const char* bad : {"\xFF", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82"})
    EXPECT_FALSE(valid_utf8(bad)) << bad;
}

TEST(utf8, finds_a_character_cut_at_the_end) {
  EXPECT_EQ(incomplete_utf8_tail("ab"), 0u);
  EXPECT_EQ(incomplete_utf8_tail("a\xE2\x82"), 2u);
  EXPECT_EQ(incomplete_utf8_tail("a\xF0"), 1u);
  EXPECT_EQ(incomplete_utf8_tail("a\xF0\x9F\x98"), 3u);
  EXPECT_EQ(incomplete_utf8_tail("\xE2\x82\xAC"), 0u);
}

TEST(utf8, repairs_each_bad_sequence_with_the_replacement_character) {
  EXPECT_EQ(repaired_utf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(repaired_utf8("\xE2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(repaired_utf8("ok \xE2\x82\xAC"), "ok \xE2\x82\xAC");
}

} // namespace
} // namespace conch::transports::openai
