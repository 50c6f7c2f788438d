#include "conch/runtime/statistics/custom_metric.hpp"

#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "conch/runtime/statistics/metrics_registry.hpp"

using namespace conch::runtime;
using namespace conch::runtime::statistics;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::shared_ptr<custom_metric_family> family_in(const metrics_registry& registry,
                                                metric_kind kind, const std::string& name) {
  auto family = custom_metric_family::make(registry.registry(), kind, name, name + " help");
  EXPECT_TRUE(family) << family.error().to_string();
  return family ? *family : nullptr;
}

} // namespace

TEST(custom_metric, a_counter_counts_and_refuses_set_and_negative_steps) {
  metrics_registry registry;
  auto family = family_in(registry, metric_kind::counter, "app_requests");
  auto metric = custom_metric::make(family, {{"route", "a"}});
  ASSERT_TRUE(metric) << metric.error().to_string();
  auto& m = **metric;
  EXPECT_EQ(m.kind(), metric_kind::counter);
  EXPECT_EQ(m.value(), 0);
  EXPECT_TRUE(m.increment(2.5).is_ok());
  EXPECT_EQ(m.value(), 2.5);
  EXPECT_EQ(m.set_value(1).code(), errc::unsupported);
  EXPECT_EQ(m.increment(-1).code(), errc::invalid_argument);
  EXPECT_EQ(m.increment(std::numeric_limits<double>::quiet_NaN()).code(),
            errc::invalid_argument);
  EXPECT_EQ(m.value(), 2.5);
  auto text = registry.serialize();
  EXPECT_TRUE(contains(text, "# HELP app_requests app_requests help\n")) << text;
  EXPECT_TRUE(contains(text, "# TYPE app_requests counter\n")) << text;
  EXPECT_TRUE(contains(text, "\napp_requests{route=\"a\"} 2.5\n")) << text;
}

TEST(custom_metric, a_gauge_moves_both_ways_and_is_set) {
  metrics_registry registry;
  auto family = family_in(registry, metric_kind::gauge, "app_queue");
  auto metric = custom_metric::make(family, {});
  ASSERT_TRUE(metric);
  auto& m = **metric;
  EXPECT_TRUE(m.increment(3).is_ok());
  EXPECT_TRUE(m.increment(-5).is_ok());
  EXPECT_EQ(m.value(), -2);
  EXPECT_TRUE(m.set_value(7).is_ok());
  EXPECT_EQ(m.value(), 7);
  EXPECT_TRUE(contains(registry.serialize(), "# TYPE app_queue gauge\napp_queue 7\n"));
}

TEST(custom_metric, series_and_families_leave_with_their_last_handle) {
  metrics_registry registry;
  auto family = family_in(registry, metric_kind::gauge, "app_shared");
  auto first = custom_metric::make(family, {{"k", "v"}});
  auto second = custom_metric::make(family, {{"k", "v"}});
  ASSERT_TRUE(first && second);
  ASSERT_TRUE((*first)->set_value(4).is_ok());
  EXPECT_EQ((*second)->value(), 4);  // equal labels share the series
  first = invalid_argument("dropped");
  EXPECT_TRUE(contains(registry.serialize(), "app_shared{k=\"v\"} 4\n"));
  second = invalid_argument("dropped");
  EXPECT_FALSE(contains(registry.serialize(), "app_shared{"));
  // The name is free again once the family is gone.
  EXPECT_EQ(custom_metric_family::make(registry.registry(), metric_kind::gauge, "app_shared", "")
              .error()
              .code(),
            errc::already_exists);
  family.reset();
  EXPECT_TRUE(custom_metric_family::make(registry.registry(), metric_kind::counter,
                                         "app_shared", ""));
}

TEST(custom_metric, bad_names_and_labels_are_refused) {
  metrics_registry registry;
  for (const char* name : {"", "1abc", "has space", "nv_inference_count", "nv_mine"}) {
    auto family = custom_metric_family::make(registry.registry(), metric_kind::counter, name, "");
    EXPECT_EQ(family.error().code(), errc::invalid_argument) << name;
  }
  auto family = family_in(registry, metric_kind::counter, "app_labelled");
  for (const char* label : {"__reserved", "bad-name", ""}) {
    auto metric = custom_metric::make(family, {{label, "v"}});
    EXPECT_EQ(metric.error().code(), errc::invalid_argument) << label;
  }
  EXPECT_EQ(custom_metric::make(nullptr, {}).error().code(), errc::invalid_argument);
}

TEST(custom_metric, process_wide_families_appear_in_every_registry) {
  metrics_registry one;
  metrics_registry two;
  auto family = custom_metric_family::make(custom_metric_family::process_registry(),
                                           metric_kind::counter, "app_process", "shared");
  ASSERT_TRUE(family);
  auto metric = custom_metric::make(*family, {});
  ASSERT_TRUE(metric);
  ASSERT_TRUE((*metric)->increment(1).is_ok());
  EXPECT_TRUE(contains(one.serialize(), "\napp_process 1\n"));
  EXPECT_TRUE(contains(two.serialize(), "\napp_process 1\n"));
  metric = invalid_argument("dropped");
  EXPECT_FALSE(contains(one.serialize(), "app_process"));
}

TEST(custom_metric, a_histogram_observes_into_its_buckets_and_refuses_the_rest) {
  metrics_registry registry;
  auto family = family_in(registry, metric_kind::histogram, "app_latency");
  EXPECT_EQ(custom_metric::make(family, {}, {1.0, 1.0}).error().code(), errc::invalid_argument);
  EXPECT_EQ(custom_metric::make(family, {}, {2.0, 1.0}).error().code(), errc::invalid_argument);
  auto metric = custom_metric::make(family, {{"k", "v"}}, {1.0, 10.0});
  ASSERT_TRUE(metric) << metric.error().to_string();
  auto& m = **metric;
  EXPECT_TRUE(m.observe(0.5).is_ok());
  EXPECT_TRUE(m.observe(5).is_ok());
  EXPECT_TRUE(m.observe(50).is_ok());
  EXPECT_EQ(m.increment(1).code(), errc::unsupported);
  EXPECT_EQ(m.set_value(1).code(), errc::unsupported);
  auto text = registry.serialize();
  EXPECT_TRUE(contains(text, "# TYPE app_latency histogram\n")) << text;
  EXPECT_TRUE(contains(text, "app_latency_bucket{k=\"v\",le=\"1\"} 1\n")) << text;
  EXPECT_TRUE(contains(text, "app_latency_bucket{k=\"v\",le=\"10\"} 2\n")) << text;
  EXPECT_TRUE(contains(text, "app_latency_bucket{k=\"v\",le=\"+Inf\"} 3\n")) << text;
  EXPECT_TRUE(contains(text, "app_latency_count{k=\"v\"} 3\n")) << text;
  metric->reset();
  EXPECT_FALSE(contains(registry.serialize(), "app_latency_count{")) << registry.serialize();

  auto counters = family_in(registry, metric_kind::counter, "app_counted");
  EXPECT_EQ(custom_metric::make(counters, {}, {1.0}).error().code(), errc::invalid_argument);
  auto counter = custom_metric::make(counters, {});
  ASSERT_TRUE(counter);
  EXPECT_EQ((*counter)->observe(1).code(), errc::unsupported);
}
