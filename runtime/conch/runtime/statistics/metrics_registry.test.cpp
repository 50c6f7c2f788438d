#include "conch/runtime/statistics/metrics_registry.hpp"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <prometheus/gauge.h>

using namespace conch::runtime;
using namespace conch::runtime::statistics;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* const model_families[] = {
  "nv_inference_request_success",          "nv_inference_count",
  "nv_inference_exec_count",               "nv_inference_request_duration_us",
  "nv_inference_queue_duration_us",        "nv_inference_compute_input_duration_us",
  "nv_inference_compute_infer_duration_us", "nv_inference_compute_output_duration_us",
  "nv_inference_pending_request_count",    "nv_model_load_duration_secs",
};

} // namespace

TEST(metrics_registry, add_model_creates_every_series_at_zero) {
  metrics_registry registry;
  auto m = registry.add_model("m", 1, {});
  ASSERT_NE(m, nullptr);
  auto text = registry.serialize();
  for (const char* family : model_families)
    EXPECT_TRUE(contains(text, std::string{"\n"} + family + "{model=\"m\",version=\"1\"} 0\n"))
      << family << " in\n" << text;
  for (const char* reason : {"REJECTED", "CANCELED", "BACKEND", "OTHER"})
    EXPECT_TRUE(contains(text, std::string{"nv_inference_request_failure{model=\"m\",reason=\""} +
                                 reason + "\",version=\"1\"} 0\n"))
      << reason;
}

TEST(metrics_registry, families_carry_the_triton_help_and_type) {
  metrics_registry registry;
  // prometheus-cpp leaves families without series out of the exposition.
  EXPECT_FALSE(contains(registry.serialize(), "nv_inference_count"));
  auto m = registry.add_model("m", 1, {});
  auto text = registry.serialize();
  EXPECT_TRUE(contains(text, "# HELP nv_inference_request_success Number of successful inference "
                             "requests, all batch sizes\n# TYPE nv_inference_request_success "
                             "counter\n"));
  EXPECT_TRUE(contains(text, "# HELP nv_inference_compute_output_duration_us Cumulative inference "
                             "compute output duration in microseconds (does not include cached "
                             "requests)\n"));
  EXPECT_TRUE(contains(text, "# HELP nv_inference_pending_request_count Instantaneous number of "
                             "pending requests awaiting execution per-model.\n# TYPE "
                             "nv_inference_pending_request_count gauge\n"));
  EXPECT_TRUE(contains(text, "# TYPE nv_model_load_duration_secs gauge\n"));
}

TEST(metrics_registry, series_vanish_when_the_handle_is_destroyed) {
  metrics_registry registry;
  auto a = registry.add_model("a", 1, {});
  auto b = registry.add_model("b", 2, {});
  a.reset();
  auto text = registry.serialize();
  EXPECT_FALSE(contains(text, "model=\"a\"")) << text;
  EXPECT_TRUE(contains(text, "nv_inference_count{model=\"b\",version=\"2\"} 0\n"));
}

TEST(metrics_registry, retire_removes_the_series_while_the_handle_lives) {
  metrics_registry registry;
  auto a = registry.add_model("a", 1, {});
  a->record_execution(2);
  a->retire();
  EXPECT_TRUE(a->retired());
  EXPECT_FALSE(contains(registry.serialize(), "model=\"a\"")) << registry.serialize();
  // Later updates are dropped, a second retire and the destructor do nothing.
  a->record_execution(1);
  a->add_pending(1);
  EXPECT_EQ(a->pending(), 0.0);
  a->retire();
  a.reset();
  EXPECT_FALSE(contains(registry.serialize(), "model=\"a\""));
}

TEST(metrics_registry, a_retired_handle_leaves_the_series_a_reload_shares) {
  // A reload whose new copy made its own handle for the same labels: the
  // old copy's retirement must not take the new copy's series.
  metrics_registry registry;
  auto old_copy = registry.add_model("m", 1, {});
  auto new_copy = registry.add_model("m", 1, {});
  new_copy->record_execution(1);
  old_copy->retire();
  EXPECT_TRUE(contains(registry.serialize(), "nv_inference_exec_count{model=\"m\",version=\"1\"} 1\n"))
    << registry.serialize();
  new_copy->retire();
  EXPECT_FALSE(contains(registry.serialize(), "model=\"m\""));
}

TEST(metrics_registry, retire_waits_for_updates_on_other_threads) {
  // Updates keep coming from other threads while the series are retired;
  // none may touch them after their release (the sanitizer builds see it).
  metrics_registry registry;
  auto m = registry.add_model("m", 1, {});
  std::atomic<bool> go{false};
  std::vector<std::thread> updaters;
  for (int t = 0; t < 3; ++t)
    updaters.emplace_back([&] {
      while (!go.load())
        std::this_thread::yield();
      for (int i = 0; i < 20000; ++i) {
        m->record_execution(1);
        m->add_pending(1);
        m->record_success(1000, 1000, 1000, 1000, 1000);
      }
    });
  go = true;
  m->retire();
  for (auto& t : updaters)
    t.join();
  EXPECT_FALSE(contains(registry.serialize(), "model=\"m\""));
}

TEST(metrics_registry, the_abandoned_thread_series_are_exposed_from_the_start) {
  metrics_registry registry;
  auto text = registry.serialize();
  EXPECT_TRUE(contains(text, "# TYPE conch_abandoned_threads gauge\nconch_abandoned_threads "))
    << text;
  EXPECT_TRUE(contains(text, "# TYPE conch_abandoned_threads_total counter\n")) << text;
}

TEST(metrics_registry, metric_tags_become_underscore_labels) {
  metrics_registry registry;
  auto m = registry.add_model("m", 3, {{"team", "vision"}, {"cost-center", "42"}});
  ASSERT_NE(m, nullptr);
  auto text = registry.serialize();
  EXPECT_TRUE(contains(text, "nv_inference_exec_count{_cost_center=\"42\",_team=\"vision\","
                             "model=\"m\",version=\"3\"} 0\n"))
    << text;
  EXPECT_EQ(m->labels().at("_team"), "vision");
}

TEST(metrics_registry, a_tag_that_makes_a_reserved_label_gives_no_metrics) {
  metrics_registry registry;
  EXPECT_EQ(registry.add_model("m", 1, {{"_hidden", "x"}}), nullptr);
  EXPECT_FALSE(contains(registry.serialize(), "model=\"m\""));
}

TEST(metrics_registry, the_same_version_loaded_twice_shares_its_series) {
  metrics_registry registry;
  auto first = registry.add_model("m", 1, {});
  auto second = registry.add_model("m", 1, {});
  first->record_execution(3);
  first.reset();
  second->record_execution(2);
  EXPECT_TRUE(contains(registry.serialize(), "nv_inference_count{model=\"m\",version=\"1\"} 5\n"));
  second.reset();
  EXPECT_FALSE(contains(registry.serialize(), "model=\"m\""));
}

TEST(metrics_registry, a_handle_may_outlive_its_registry) {
  std::unique_ptr<model_metrics> m;
  {
    metrics_registry registry;
    m = registry.add_model("m", 1, {});
  }
  m->record_failure(failure_kind::rejected);
  m.reset();
  SUCCEED();
}

TEST(metrics_registry, custom_families_appear_in_the_exposition) {
  metrics_registry registry;
  prometheus::BuildGauge().Name("conch_custom").Help("A custom gauge.").Register(
    *registry.registry()).Add({}).Set(7);
  EXPECT_TRUE(contains(registry.serialize(), "\nconch_custom 7\n"));
}

namespace {

metrics_settings all_latencies() {
  metrics_settings s;
  s.summary_latencies = true;
  s.histogram_latencies = true;
  s.summary_quantiles = {{0.5, 0.05}, {0.9, 0.01}};
  return s;
}

const char* const summary_families[] = {
  "nv_inference_request_summary_us",       "nv_inference_queue_summary_us",
  "nv_inference_compute_input_summary_us", "nv_inference_compute_infer_summary_us",
  "nv_inference_compute_output_summary_us",
};

} // namespace

TEST(metrics_registry, summaries_are_off_by_default) {
  metrics_registry registry;
  auto m = registry.add_model("m", 1, {}, {true, {}});
  m->record_success(1'000'000, 0, 0, 0, 0);
  m->record_first_response(5'000'000);
  auto text = registry.serialize();
  EXPECT_FALSE(contains(text, "_summary_us")) << text;
  EXPECT_FALSE(contains(text, "nv_inference_first_response_histogram_ms")) << text;
  EXPECT_FALSE(m->has_first_response_histogram());
}

TEST(metrics_registry, summaries_carry_triton_names_help_and_quantiles) {
  metrics_registry registry{all_latencies()};
  auto m = registry.add_model("m", 1, {});
  auto text = registry.serialize();
  for (const char* family : summary_families) {
    std::string f = family;
    EXPECT_TRUE(contains(text, "# TYPE " + f + " summary\n")) << text;
    EXPECT_TRUE(contains(text, "\n" + f + "_count{model=\"m\",version=\"1\"} 0\n")) << text;
    EXPECT_TRUE(contains(text, "\n" + f + "_sum{model=\"m\",version=\"1\"} 0\n")) << text;
    EXPECT_TRUE(contains(text, "\n" + f + "{model=\"m\",version=\"1\",quantile=\"0.9\"} "))
      << text;
  }
  EXPECT_TRUE(contains(text, "# HELP nv_inference_request_summary_us Summary of inference request "
                             "duration in microseconds (includes cached requests)\n"));
  EXPECT_TRUE(contains(text, "# HELP nv_inference_queue_summary_us Summary of inference queuing "
                             "duration in microseconds (includes cached requests)\n"));
  EXPECT_TRUE(contains(text, "# HELP nv_inference_compute_infer_summary_us Cumulative compute "
                             "inference duration in microseconds (does not include cached "
                             "requests)\n"));
  m.reset();
  EXPECT_FALSE(contains(registry.serialize(), "_summary_us")) << "gone with the model";
}

TEST(metrics_registry, summary_count_and_sum_match_the_counters) {
  metrics_registry registry{all_latencies()};
  auto m = registry.add_model("m", 1, {});
  m->record_success(2'500'900, 1'000'000, 0, 1'400'000, 1'000);
  m->record_success(3'000'000, 0, 0, 1'400'000, 0);
  m->record_failure(failure_kind::backend);
  auto text = registry.serialize();
  EXPECT_TRUE(contains(text, "nv_inference_request_duration_us{model=\"m\",version=\"1\"} 5500\n"));
  EXPECT_TRUE(contains(text, "nv_inference_request_summary_us_sum{model=\"m\",version=\"1\"} "
                             "5500\n"))
    << text;
  EXPECT_TRUE(contains(text, "nv_inference_request_summary_us_count{model=\"m\",version=\"1\"} "
                             "2\n"));
  EXPECT_TRUE(contains(text, "nv_inference_compute_infer_summary_us_sum{model=\"m\","
                             "version=\"1\"} 2800\n"));
  EXPECT_TRUE(contains(text, "nv_inference_compute_infer_summary_us{model=\"m\",version=\"1\","
                             "quantile=\"0.9\"} 1400\n"))
    << text;
}

TEST(metrics_registry, counter_latencies_off_drops_the_duration_counters_only) {
  metrics_settings s;
  s.counter_latencies = false;
  metrics_registry registry{s};
  auto m = registry.add_model("m", 1, {});
  m->record_success(1'000'000, 1'000, 1'000, 1'000, 1'000);
  auto text = registry.serialize();
  EXPECT_FALSE(contains(text, "_duration_us")) << text;
  EXPECT_TRUE(contains(text, "nv_inference_request_success{model=\"m\",version=\"1\"} 1\n"));
}

TEST(metrics_registry, the_first_response_histogram_is_for_decoupled_models) {
  metrics_registry registry{all_latencies()};
  auto plain = registry.add_model("plain", 1, {});
  auto streaming = registry.add_model("streaming", 1, {}, {true, {}});
  EXPECT_FALSE(plain->has_first_response_histogram());
  ASSERT_TRUE(streaming->has_first_response_histogram());
  streaming->record_first_response(150'700'000); // 150 ms
  streaming->record_first_response(7'000'000'000);
  auto text = registry.serialize();
  EXPECT_TRUE(contains(text, "# HELP nv_inference_first_response_histogram_ms Duration from "
                             "request to first response in milliseconds\n# TYPE "
                             "nv_inference_first_response_histogram_ms histogram\n"));
  const std::string f = "nv_inference_first_response_histogram_ms";
  const std::string l = "{model=\"streaming\",version=\"1\"";
  EXPECT_TRUE(contains(text, f + "_count" + l + "} 2\n")) << text;
  EXPECT_TRUE(contains(text, f + "_sum" + l + "} 7150\n")) << text;
  EXPECT_TRUE(contains(text, f + "_bucket" + l + ",le=\"100\"} 0\n")) << text;
  EXPECT_TRUE(contains(text, f + "_bucket" + l + ",le=\"500\"} 1\n")) << text;
  EXPECT_TRUE(contains(text, f + "_bucket" + l + ",le=\"5000\"} 1\n")) << text;
  EXPECT_TRUE(contains(text, f + "_bucket" + l + ",le=\"+Inf\"} 2\n")) << text;
  EXPECT_FALSE(contains(text, f + "_count{model=\"plain\"")) << text;
}

TEST(metrics_registry, a_model_may_set_its_histogram_buckets) {
  metrics_registry registry{all_latencies()};
  auto m = registry.add_model("m", 1, {}, {true, {-1, 0, 1, 2.5}});
  auto text = registry.serialize();
  const std::string b = "nv_inference_first_response_histogram_ms_bucket{model=\"m\",version=\"1\",";
  for (const char* le : {"-1", "0", "1", "2.5", "+Inf"})
    EXPECT_TRUE(contains(text, b + "le=\"" + le + "\"} 0\n")) << le << "\n" << text;
  EXPECT_FALSE(contains(text, b + "le=\"100\"}")) << text;
}
