#include "conch/transports/protocol/log_settings_change.hpp"

#include <map>

#include <gtest/gtest.h>

namespace conch::transports::protocol {
namespace {

setting_lookup from(std::map<std::string, setting_value> values) {
  return [values = std::move(values)](std::string_view key) -> setting_value {
    auto i = values.find(std::string{key});
    return i == values.end() ? setting_value{} : i->second;
  };
}

TEST(log_settings_change, reads_each_setting_and_skips_nulls) {
  auto u = parse_log_settings_change(from({{"log_info", false},
                                           {"log_error", std::monostate{}},
                                           {"log_verbose_level", uint64_t{3}},
                                           {"log_format", std::string{"ISO8601"}},
                                           {"unknown", other_value{}}}));
  ASSERT_TRUE(u) << u.error().to_string();
  EXPECT_EQ(u->log_info, false);
  EXPECT_FALSE(u->log_warning);
  EXPECT_FALSE(u->log_error);
  EXPECT_EQ(u->log_verbose_level, 3u);
  EXPECT_EQ(u->log_format, "ISO8601");
}

TEST(log_settings_change, refuses_wrong_types_and_log_file) {
  auto file = parse_log_settings_change(from({{"log_file", std::string{"x"}}}));
  EXPECT_EQ(file.error().code(), runtime::errc::unsupported);
  EXPECT_EQ(file.error().message(),
            "log file location can not be updated through network protocol");
  EXPECT_TRUE(parse_log_settings_change(from({{"log_file", std::monostate{}}})));
  auto info = parse_log_settings_change(from({{"log_warning", std::string{"true"}}}));
  EXPECT_EQ(info.error().message(), "expect boolean for 'log_warning'");
  auto level = parse_log_settings_change(from({{"log_verbose_level", true}}));
  EXPECT_EQ(level.error().message(), "expect unsigned integer for 'log_verbose_level'");
  auto big = parse_log_settings_change(from({{"log_verbose_level", uint64_t{1} << 32}}));
  EXPECT_EQ(big.error().code(), runtime::errc::invalid_argument);
  auto format = parse_log_settings_change(from({{"log_format", other_value{}}}));
  EXPECT_EQ(format.error().message(), "expect string for 'log_format'");
}

} // namespace
} // namespace conch::transports::protocol
