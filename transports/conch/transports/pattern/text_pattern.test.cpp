#include "conch/transports/pattern/text_pattern.hpp"

#include <string>

#include <gtest/gtest.h>

namespace conch::transports::pattern {
namespace {

TEST(text_pattern, an_invalid_pattern_is_refused_with_a_reason) {
  auto p = text_pattern::compile("(", letter_case::sensitive);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code(), runtime::errc::invalid_argument);
  EXPECT_FALSE(p.error().message().empty());
  EXPECT_FALSE(text_pattern::compile("([", letter_case::ignored));
}

TEST(text_pattern, searches_or_matches_the_whole_text) {
  auto p = text_pattern::compile("ab+", letter_case::sensitive);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->source(), "ab+");
  EXPECT_TRUE(p->found_in("xxabbby"));
  EXPECT_FALSE(p->matches_all_of("xxabbby"));
  EXPECT_TRUE(p->matches_all_of("abbb"));
  EXPECT_FALSE(p->found_in("AB"));
  auto anchored = text_pattern::compile("^x-", letter_case::ignored);
  ASSERT_TRUE(anchored);
  EXPECT_TRUE(anchored->found_in("X-Trace"));
  EXPECT_FALSE(anchored->found_in("a-x-trace"));
}

TEST(text_pattern, ignores_case_when_asked) {
  auto p = text_pattern::compile("/v1/Endpoints/[0-9]+:predict", letter_case::ignored);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->matches_all_of("/V1/ENDPOINTS/7:PREDICT"));
}

TEST(text_pattern, reads_bytes_that_are_not_utf8) {
  auto p = text_pattern::compile("^a.c$", letter_case::sensitive);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->found_in(std::string{"a\xff" "c"}));
  EXPECT_TRUE(p->found_in(std::string{"a\0c", 3}));
}

// std::regex recursed once per character and overflowed the stack on texts
// of a few tens of kilobytes; a megabyte is answered, in linear time.
TEST(text_pattern, matches_a_megabyte_of_text) {
  const std::string huge(1 << 20, 'x');
  for (const char* source : {"x.*", ".*", "(x|y)*z", "^(x+x+)+$", "x*?y"}) {
    auto p = text_pattern::compile(source, letter_case::ignored);
    ASSERT_TRUE(p) << source;
    (void) p->found_in(huge);
    (void) p->matches_all_of(huge);
  }
  auto p = text_pattern::compile("(x|y)*", letter_case::ignored);
  EXPECT_TRUE(p->matches_all_of(huge));
  EXPECT_FALSE(text_pattern::compile("z", letter_case::sensitive)->found_in(huge));
}

TEST(text_pattern, copies_share_the_compiled_pattern) {
  auto p = text_pattern::compile("y", letter_case::sensitive);
  ASSERT_TRUE(p);
  text_pattern copy = *p;
  EXPECT_TRUE(copy.found_in("xyz"));
  EXPECT_EQ(&copy.source(), &p->source());
}

} // namespace
} // namespace conch::transports::pattern
