#include "conch/transports/http/kserve/log_settings_body.hpp"

#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/test/post_with_body.hpp"

namespace conch::transports::http::kserve {
namespace {

using test::with_body;

TEST(log_settings_body, reads_each_field_and_skips_nulls) {
  auto u = parse_log_settings_body(with_body(
    R"({"log_info":false,"log_warning":null,"log_verbose_level":2,"log_format":"ISO8601","log_file":null})"));
  ASSERT_TRUE(u) << u.error().to_string();
  EXPECT_EQ(u->log_info, false);
  EXPECT_FALSE(u->log_warning);
  EXPECT_FALSE(u->log_error);
  EXPECT_EQ(u->log_verbose_level, 2u);
  EXPECT_EQ(u->log_format, "ISO8601");
}

TEST(log_settings_body, refuses_a_log_file_and_wrong_types) {
  EXPECT_EQ(parse_log_settings_body(with_body(R"({"log_file":"x.log"})")).error().code(),
            runtime::errc::unsupported);
  EXPECT_EQ(parse_log_settings_body(with_body(R"({"log_info":1})")).error().code(),
            runtime::errc::invalid_argument);
  EXPECT_FALSE(parse_log_settings_body(with_body(R"({"log_verbose_level":-1})")));
  EXPECT_FALSE(parse_log_settings_body(with_body(R"({"log_format":3})")));
  EXPECT_FALSE(parse_log_settings_body(with_body("")));
}

TEST(log_settings_body, writes_every_key) {
  EXPECT_EQ(log_settings_json({}),
            R"({"log_file":"","log_info":true,"log_warning":true,"log_error":true,)"
            R"("log_verbose_level":0,"log_format":"default"})");
}

} // namespace
} // namespace conch::transports::http::kserve
