#include "conch/runtime/status.hpp"

#include <set>

#include <gtest/gtest.h>

#include "conch/runtime/result.hpp"

using namespace conch::runtime;

TEST(status, ok_by_default) {
  status s;
  EXPECT_TRUE(s.is_ok());
  EXPECT_EQ(s.to_string(), "OK");
}

TEST(status, carries_code_and_message) {
  auto s = not_found("Request for unknown model: 'm' is not found");
  EXPECT_FALSE(s);
  EXPECT_EQ(s.code(), errc::not_found);
  EXPECT_EQ(s.to_string(), "NOT_FOUND: Request for unknown model: 'm' is not found");
  EXPECT_EQ(s.with_prefix("x: ").message(), "x: Request for unknown model: 'm' is not found");
}

TEST(status, every_code_has_a_distinct_name) {
  std::set<std::string_view> names;
  for (int i = 0; i <= static_cast<int>(errc::unknown); ++i)
    names.insert(errc_name(static_cast<errc>(i)));
  EXPECT_EQ(names.size(), static_cast<size_t>(errc::unknown) + 1);
}

TEST(result, holds_value_or_error) {
  result<int> a{42};
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, 42);
  result<int> b{invalid_argument("bad")};
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code(), errc::invalid_argument);
}
