#include "conch/transports/grpc/log_settings_codec.hpp"

#include <gtest/gtest.h>

namespace conch::transports::grpc {
namespace {

TEST(log_settings_codec, decodes_typed_values_and_skips_unset_ones) {
  inference::LogSettingsRequest req;
  auto& s = *req.mutable_settings();
  s["log_warning"].set_bool_param(false);
  s["log_verbose_level"].set_uint32_param(4);
  s["log_format"].set_string_param("ISO8601");
  s["log_info"];  // unset
  auto u = decode_log_settings(req);
  ASSERT_TRUE(u) << u.error().to_string();
  EXPECT_EQ(u->log_warning, false);
  EXPECT_FALSE(u->log_info);
  EXPECT_EQ(u->log_verbose_level, 4u);
  EXPECT_EQ(u->log_format, "ISO8601");

  s["log_info"].set_uint32_param(1);
  EXPECT_EQ(decode_log_settings(req).error().message(), "expect boolean for 'log_info'");
}

TEST(log_settings_codec, encodes_every_setting) {
  log_settings settings;
  settings.log_verbose_level = 2;
  inference::LogSettingsResponse res;
  encode_log_settings(settings, res);
  ASSERT_EQ(res.settings_size(), 6);
  EXPECT_EQ(res.settings().at("log_file").string_param(), "");
  EXPECT_TRUE(res.settings().at("log_info").bool_param());
  EXPECT_EQ(res.settings().at("log_verbose_level").uint32_param(), 2u);
  EXPECT_EQ(res.settings().at("log_format").string_param(), "default");
}

} // namespace
} // namespace conch::transports::grpc
