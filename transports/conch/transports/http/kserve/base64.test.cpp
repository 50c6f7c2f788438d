#include "conch/transports/http/kserve/base64.hpp"

#include <gtest/gtest.h>

namespace conch::transports::http::kserve {
namespace {

TEST(base64, decodes_with_and_without_padding) {
  EXPECT_EQ(*base64_decode(""), "");
  EXPECT_EQ(*base64_decode("Zg=="), "f");
  EXPECT_EQ(*base64_decode("Zm8="), "fo");
  EXPECT_EQ(*base64_decode("Zm9v"), "foo");
  EXPECT_EQ(*base64_decode("Zm9vYmE"), "fooba");
  EXPECT_EQ(*base64_decode("AP8A/w=="), std::string("\0\xff\0\xff", 4));
}

TEST(base64, refuses_garbage) {
  EXPECT_FALSE(base64_decode("Zm9v!"));
  EXPECT_FALSE(base64_decode("Z"));
  EXPECT_FALSE(base64_decode("Zm=v"));
  EXPECT_FALSE(base64_decode("Zm9=="));
  EXPECT_EQ(base64_decode("Zm 9v").error().code(), runtime::errc::invalid_argument);
}

} // namespace
} // namespace conch::transports::http::kserve
