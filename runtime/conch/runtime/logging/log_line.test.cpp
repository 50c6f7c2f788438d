#include "conch/runtime/logging/log_line.hpp"

#include <ctime>

#include <gtest/gtest.h>

namespace conch::runtime::logging {
namespace {

// 2026-11-30 02:03:04.123456 UTC.
std::chrono::system_clock::time_point sample_time() {
  std::tm tm{};
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = 10;
  tm.tm_mday = 30;
  tm.tm_hour = 2;
  tm.tm_min = 3;
  tm.tm_sec = 4;
  auto secs = std::chrono::system_clock::from_time_t(timegm(&tm));
  return secs + std::chrono::microseconds{123456};
}

TEST(log_line, default_timestamp_has_month_day_and_microseconds) {
  EXPECT_EQ(log_timestamp(log_format::standard, sample_time()), "1130 02:03:04.123456");
  EXPECT_EQ(log_timestamp(log_format::standard, sample_time() - std::chrono::microseconds{123400}),
            "1130 02:03:04.000056");
}

TEST(log_line, iso8601_timestamp_has_whole_seconds_in_utc) {
  EXPECT_EQ(log_timestamp(log_format::iso8601, sample_time()), "2026-11-30T02:03:04Z");
}

TEST(log_line, default_line_starts_with_the_level_letter) {
  auto stamp = log_timestamp(log_format::standard, sample_time());
  log_record r{log_level::info, "/src/conch/actors/file.cc", 12, "message"};
  EXPECT_EQ(format_line(log_format::standard, stamp, 1234, r),
            "I1130 02:03:04.123456 1234 file.cc:12] message");
  r.level = log_level::warn;
  EXPECT_EQ(format_line(log_format::standard, stamp, 7, r), "W1130 02:03:04.123456 7 file.cc:12] message");
  r.level = log_level::error;
  EXPECT_EQ(format_line(log_format::standard, stamp, 7, r), "E1130 02:03:04.123456 7 file.cc:12] message");
}

TEST(log_line, iso8601_line_puts_the_level_after_the_timestamp) {
  auto stamp = log_timestamp(log_format::iso8601, sample_time());
  log_record r{log_level::warn, "file.cc", 12, "hello world"};
  EXPECT_EQ(format_line(log_format::iso8601, stamp, 1234, r),
            "2026-11-30T02:03:04Z W 1234 file.cc:12] hello world");
}

TEST(log_line, verbose_lines_are_written_as_info) {
  log_record r{log_level::verbose, "a.cpp", 1, "v"};
  EXPECT_EQ(format_line(log_format::iso8601, "T", 1, r), "T I 1 a.cpp:1] v");
}

TEST(log_line, control_characters_are_escaped) {
  std::string storage;
  EXPECT_EQ(escape_controls("plain text, even \xc3\xa9", storage), "plain text, even \xc3\xa9");
  EXPECT_TRUE(storage.empty()); // nothing to escape: nothing copied
  EXPECT_EQ(escape_controls("a\r\nE1231 forged", storage), "a\\r\\nE1231 forged");
  EXPECT_EQ(escape_controls(std::string_view{"\t\0\x1b[31m\x7f\x1f", 9}, storage),
            "\\t\\x00\\x1b[31m\\x7f\\x1f");
  EXPECT_EQ(escape_controls("back\\slash \x80", storage), "back\\slash \x80");
}

TEST(log_line, names_and_parses_formats) {
  EXPECT_EQ(format_name(log_format::standard), "default");
  EXPECT_EQ(format_name(log_format::iso8601), "ISO8601");
  EXPECT_EQ(parse_format("ISO8601"), log_format::iso8601);
  EXPECT_EQ(parse_format("default"), log_format::standard);
  EXPECT_FALSE(parse_format("iso8601"));
  EXPECT_EQ(base_name("a/b/c.cpp"), "c.cpp");
  EXPECT_EQ(base_name("c.cpp"), "c.cpp");
}

} // namespace
} // namespace conch::runtime::logging
