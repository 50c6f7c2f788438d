#include "conch/transports/http/header_map.hpp"

#include <gtest/gtest.h>

namespace conch::transports::http {
namespace {

TEST(header_map, names_compare_without_case) {
  header_map h;
  h.add("Content-Type", "application/json");
  ASSERT_NE(h.find("content-type"), nullptr);
  EXPECT_EQ(*h.find("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(h.find("Content-Length"), nullptr);
}

TEST(header_map, set_replaces_and_erase_removes_every_copy) {
  header_map h;
  h.add("X-A", "1");
  h.add("x-a", "2");
  EXPECT_EQ(h.size(), 2u);
  h.set("X-A", "3");
  EXPECT_EQ(h.size(), 1u);
  EXPECT_EQ(*h.find("x-a"), "3");
  h.erase("X-a");
  EXPECT_TRUE(h.empty());
}

TEST(header_map, tokens_are_found_in_lists_and_repeated_fields) {
  header_map h;
  h.add("Connection", "keep-alive, Upgrade");
  h.add("Expect", " 100-Continue ");
  EXPECT_TRUE(h.has_token("connection", "upgrade"));
  EXPECT_TRUE(h.has_token("Connection", "keep-alive"));
  EXPECT_FALSE(h.has_token("Connection", "close"));
  EXPECT_TRUE(h.has_token("Expect", "100-continue"));
}

} // namespace
} // namespace conch::transports::http
