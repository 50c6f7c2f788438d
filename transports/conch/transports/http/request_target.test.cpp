#include "conch/transports/http/request_target.hpp"

#include <gtest/gtest.h>

namespace conch::transports::http {
namespace {

using segments = std::vector<std::string>;

TEST(request_target, splits_and_decodes_segments) {
  auto t = parse_request_target("/v2/models/my%20model/versions/2/infer");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/v2/models/my%20model/versions/2/infer");
  EXPECT_EQ(t->segments, (segments{"v2", "models", "my model", "versions", "2", "infer"}));
}

TEST(request_target, drops_query_and_fragment) {
  auto t = parse_request_target("/v2/health/ready?verbose=1#top");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->path, "/v2/health/ready");
  EXPECT_EQ(t->segments, (segments{"v2", "health", "ready"}));
}

TEST(request_target, keeps_a_trailing_slash_as_an_empty_segment) {
  EXPECT_EQ(parse_request_target("/metrics/")->segments, (segments{"metrics", ""}));
  EXPECT_EQ(parse_request_target("/")->segments, segments{});
}

TEST(request_target, decodes_an_escaped_slash_inside_a_segment) {
  EXPECT_EQ(parse_request_target("/a%2Fb/c")->segments, (segments{"a/b", "c"}));
}

TEST(request_target, accepts_absolute_form) {
  auto t = parse_request_target("http://localhost:8000/v2?x");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->segments, segments{"v2"});
}

TEST(request_target, rejects_bad_escapes_and_relative_targets) {
  EXPECT_EQ(parse_request_target("/a%2").error().code(), runtime::errc::invalid_argument);
  EXPECT_EQ(parse_request_target("/a%g0").error().code(), runtime::errc::invalid_argument);
  EXPECT_FALSE(parse_request_target("v2/models"));
  EXPECT_FALSE(parse_request_target("*"));
}

TEST(request_target, percent_decode_handles_every_byte) {
  EXPECT_EQ(*percent_decode("%00%ff%41"), std::string("\0\xff" "A", 3));
  EXPECT_EQ(*percent_decode("plain+text"), "plain+text");
}

} // namespace
} // namespace conch::transports::http
