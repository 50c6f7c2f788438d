#include "conch/actors/log_settings.hpp"

#include <gtest/gtest.h>

namespace conch::actors {
namespace {

TEST(log_settings_store, starts_with_the_defaults) {
  log_settings_store store;
  auto s = store.get();
  EXPECT_EQ(s.log_file, "");
  EXPECT_TRUE(s.log_info);
  EXPECT_TRUE(s.log_warning);
  EXPECT_TRUE(s.log_error);
  EXPECT_EQ(s.log_verbose_level, 0u);
  EXPECT_EQ(s.log_format, "default");
}

TEST(log_settings_store, changes_only_the_given_fields) {
  log_settings_store store;
  log_settings_change c;
  c.log_info = false;
  c.log_verbose_level = 2;
  c.log_format = "ISO8601";
  auto s = store.apply(c);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->log_info);
  EXPECT_TRUE(s->log_warning);
  EXPECT_EQ(s->log_verbose_level, 2u);
  EXPECT_EQ(store.get().log_format, "ISO8601");
}

TEST(log_settings_store, refuses_an_unknown_format_and_changes_nothing) {
  log_settings_store store;
  log_settings_change c;
  c.log_info = false;
  c.log_format = "json";
  auto s = store.apply(c);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), runtime::errc::invalid_argument);
  EXPECT_TRUE(store.get().log_info);
}

} // namespace
} // namespace conch::actors
