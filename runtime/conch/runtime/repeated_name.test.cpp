#include "conch/runtime/repeated_name.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace conch::runtime {
namespace {

std::optional<std::string_view> repeated(const std::vector<std::string>& names) {
  return repeated_name(names, [](const std::string& s) -> const std::string& { return s; });
}

TEST(repeated_name, none_among_distinct_names) {
  EXPECT_FALSE(repeated({}));
  EXPECT_FALSE(repeated({"a"}));
  EXPECT_FALSE(repeated({"a", "b", "c"}));
}

TEST(repeated_name, finds_a_repeat_among_few_names) {
  EXPECT_EQ(repeated({"a", "b", "a"}), "a");
  EXPECT_EQ(repeated({"", ""}), "");
}

TEST(repeated_name, finds_a_repeat_among_many_names) {
  std::vector<std::string> names;
  for (int i = 0; i < 200000; ++i)
    names.push_back("input_" + std::to_string(i));
  EXPECT_FALSE(repeated(names));
  names.push_back("input_123456");
  EXPECT_EQ(repeated(names), "input_123456");
}

TEST(repeated_name, names_may_differ_only_after_a_nul_byte) {
  std::vector<std::string> names;
  for (int i = 0; i < 20; ++i)
    names.push_back(std::string("x\0", 2) + std::to_string(i));
  EXPECT_FALSE(repeated(names));
}

} // namespace
} // namespace conch::runtime
