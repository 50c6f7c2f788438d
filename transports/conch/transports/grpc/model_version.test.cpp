#include "conch/transports/grpc/model_version.hpp"

#include <gtest/gtest.h>

namespace conch::transports::grpc {
namespace {

TEST(model_version, empty_means_any_version) {
  auto v = parse_model_version("");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, -1);
}

TEST(model_version, digits_parse) {
  auto v = parse_model_version("42");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, 42);
}

TEST(model_version, anything_else_is_invalid) {
  for (const char* bad : {"0", "-1", "1a", " 1", "99999999999999999999"}) {
    auto v = parse_model_version(bad);
    ASSERT_FALSE(v) << bad;
    EXPECT_EQ(v.error().code(), runtime::errc::invalid_argument);
    EXPECT_EQ(v.error().message(), "version should be an integral value > 0");
  }
}

} // namespace
} // namespace conch::transports::grpc
