#include "conch/runtime/tensor.hpp"

#include <cstring>

#include <gtest/gtest.h>

#include "conch/runtime/bytes_elements.hpp"

using namespace conch::runtime;

TEST(tensor, element_count_handles_scalars_wildcards_and_overflow) {
  EXPECT_EQ(element_count({}), 1);
  EXPECT_EQ(element_count({2, 3}), 6);
  EXPECT_EQ(element_count({2, 0}), 0);
  EXPECT_EQ(element_count({-1, 3}), -1);
  EXPECT_EQ(element_count({INT64_MAX, 2}), -2);
}

TEST(tensor, validates_fixed_size_data) {
  tensor t{"INPUT0", data_type::fp32, {1, 16}, buffer::allocate(64)};
  EXPECT_TRUE(t.validate_data());
  t.data = buffer::allocate(60);
  auto st = t.validate_data();
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("INPUT0"), std::string::npos);
}

TEST(tensor, slices_alias_the_same_bytes) {
  auto b = buffer::copy_of("abcdefgh", 8);
  auto s = b.slice(2, 3);
  EXPECT_EQ(s.data(), b.data() + 2);
  EXPECT_EQ(std::memcmp(s.data(), "cde", 3), 0);
  EXPECT_EQ(s.owner(), b.owner());
}

TEST(bytes_elements, round_trip) {
  std::vector<std::string_view> in{"", "a", std::string_view{"\0b\0", 3}, "hello"};
  auto b = serialize_bytes_elements(in);
  EXPECT_EQ(b.size(), 4 * 4 + 0 + 1 + 3 + 5);
  auto out = split_bytes_elements(b.data(), b.size());
  ASSERT_TRUE(out);
  ASSERT_EQ(out->size(), 4u);
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ((*out)[i], in[i]);
  tensor t{"S", data_type::bytes, {2, 2}, b};
  EXPECT_TRUE(t.validate_data());
  t.shape = {3};
  EXPECT_FALSE(t.validate_data());
}

TEST(bytes_elements, truncated_data_is_an_error) {
  std::string s;
  append_bytes_element(s, "hello");
  auto b = buffer::copy_of(s.data(), s.size() - 1);
  EXPECT_FALSE(count_bytes_elements(b.data(), b.size()));
  auto c = buffer::copy_of(s.data(), 3);
  EXPECT_FALSE(count_bytes_elements(c.data(), c.size()));
}
