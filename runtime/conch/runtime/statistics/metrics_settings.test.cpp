#include "conch/runtime/statistics/metrics_settings.hpp"

#include <gtest/gtest.h>

using namespace conch::runtime;
using namespace conch::runtime::statistics;

namespace {

using groups = std::map<std::string, std::map<std::string, std::string>>;

void expect_invalid(const groups& g, const std::string& part) {
  auto s = parse_metrics_configuration(g);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), errc::invalid_argument);
  EXPECT_NE(s.error().message().find(part), std::string::npos) << s.error().message();
}

} // namespace

TEST(metrics_settings, defaults_keep_counters_only_with_tritons_quantiles) {
  auto s = parse_metrics_configuration({});
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->counter_latencies);
  EXPECT_FALSE(s->summary_latencies);
  EXPECT_FALSE(s->histogram_latencies);
  ASSERT_EQ(s->summary_quantiles.size(), 5u);
  EXPECT_EQ(s->summary_quantiles[0].quantile, 0.5);
  EXPECT_EQ(s->summary_quantiles[0].error, 0.05);
  EXPECT_EQ(s->summary_quantiles[4].quantile, 0.999);
  EXPECT_EQ(s->summary_quantiles[4].error, 0.001);
}

TEST(metrics_settings, the_unnamed_group_sets_every_switch) {
  auto s = parse_metrics_configuration({{"",
                                         {{"counter_latencies", "false"},
                                          {"summary_latencies", "true"},
                                          {"histogram_latencies", "1"},
                                          {"summary_quantiles", "0.5:0.1,0.99:0.001"}}}});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_FALSE(s->counter_latencies);
  EXPECT_TRUE(s->summary_latencies);
  EXPECT_TRUE(s->histogram_latencies);
  ASSERT_EQ(s->summary_quantiles.size(), 2u);
  EXPECT_EQ(s->summary_quantiles[1].quantile, 0.99);
  EXPECT_EQ(s->summary_quantiles[1].error, 0.001);
}

TEST(metrics_settings, bad_values_keys_and_groups_are_named) {
  expect_invalid({{"", {{"summary_latencies", "yes please"}}}}, "summary_latencies=yes please");
  expect_invalid({{"", {{"summary_quantiles", "0.5"}}}}, "summary_quantiles=0.5");
  expect_invalid({{"", {{"summary_quantiles", "0.5:0.05,"}}}}, "summary_quantiles");
  expect_invalid({{"", {{"summary_quantiles", "1.5:0.05"}}}}, "[0, 1]");
  expect_invalid({{"", {{"summary_quantiles", "0.5:x"}}}}, "summary_quantiles");
  expect_invalid({{"", {{"summary_latency", "true"}}}}, "unknown metrics configuration setting "
                                                         "'summary_latency'");
  expect_invalid({{"gpu", {{"summary_latencies", "true"}}}}, "group 'gpu'");
}
