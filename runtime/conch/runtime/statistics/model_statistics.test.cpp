#include "conch/runtime/statistics/model_statistics.hpp"

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "conch/runtime/clock.hpp"
#include "conch/runtime/statistics/metrics_registry.hpp"

using namespace conch::runtime;
using namespace conch::runtime::statistics;

namespace {

// The value of the series `series` (name and labels) in an exposition; -1 if absent.
double value_of(const std::string& text, const std::string& series) {
  auto at = text.find("\n" + series + " ");
  if (at == std::string::npos)
    return -1;
  return std::strtod(text.c_str() + at + series.size() + 2, nullptr);
}

std::string series(const std::string& family) {
  return family + "{model=\"m\",version=\"1\"}";
}

std::string failure_series(const std::string& reason) {
  return "nv_inference_request_failure{model=\"m\",reason=\"" + reason + "\",version=\"1\"}";
}

// Timestamps 1 ms in the past: queue 3 us, compute input 2 us, infer 4 us, output 5 us.
job_times past_times() {
  job_times t;
  t.arrival = now_ns() - 1'000'000;
  t.queue_start = t.arrival + 1'000;
  t.exec_start = t.queue_start + 3'000;
  t.input_end = t.exec_start + 2'000;
  t.output_start = t.input_end + 4'000;
  t.exec_end = t.output_start + 5'000;
  return t;
}

job_ptr make_job(const std::shared_ptr<model_statistics>& stats, const job_times& t) {
  auto job = std::make_shared<inference_job>(inference_request{}, [](inference_response&&) {});
  job->set_model_observer(stats);
  job->times() = t;
  return job;
}

inference_response output_response(bool final) {
  inference_response r;
  tensor y;
  y.name = "Y";
  r.outputs.push_back(y);
  r.final = final;
  return r;
}

struct fixture : ::testing::Test {
  metrics_registry registry;
  std::shared_ptr<model_statistics> stats;

  void make(bool decoupled, int32_t max_batch_size = 8) {
    stats = std::make_shared<model_statistics>("m", 1, decoupled, max_batch_size,
                                               registry.add_model("m", 1, {}));
  }
  double metric(const std::string& s) { return value_of(registry.serialize(), s); }
};

} // namespace

TEST_F(fixture, successes_and_failures_of_each_kind_are_counted_exactly) {
  make(false);
  auto before = wall_ms();
  for (int i = 0; i < 5; ++i)
    make_job(stats, past_times())->respond(output_response(true));
  for (int i = 0; i < 2; ++i)
    make_job(stats, past_times())->fail(internal_error("boom"), failure_kind::backend);
  for (int i = 0; i < 3; ++i)
    make_job(stats, past_times())->fail(unavailable("queue full"), failure_kind::rejected);
  for (int i = 0; i < 4; ++i)
    make_job(stats, past_times())->fail(cancelled("cancelled"));
  make_job(stats, past_times())->fail(invalid_argument("bad"), failure_kind::other);
  make_job(stats, past_times()); // dropped unanswered: OTHER
  auto s = stats->snapshot();
  EXPECT_EQ(s.success.count, 5u);
  EXPECT_GE(s.success.ns, 5u * 1'000'000);
  EXPECT_EQ(s.fail.count, 11u);
  EXPECT_EQ(s.queue, (duration_stat{5, 15'000}));
  EXPECT_EQ(s.compute_input, (duration_stat{5, 10'000}));
  EXPECT_EQ(s.compute_infer, (duration_stat{5, 20'000}));
  EXPECT_EQ(s.compute_output, (duration_stat{5, 25'000}));
  EXPECT_GE(s.last_inference, before);
  EXPECT_LE(s.last_inference, wall_ms());
  auto text = registry.serialize();
  EXPECT_EQ(value_of(text, series("nv_inference_request_success")), 5);
  EXPECT_EQ(value_of(text, failure_series("BACKEND")), 2);
  EXPECT_EQ(value_of(text, failure_series("REJECTED")), 3);
  EXPECT_EQ(value_of(text, failure_series("CANCELED")), 4);
  EXPECT_EQ(value_of(text, failure_series("OTHER")), 2);
  EXPECT_EQ(value_of(text, series("nv_inference_queue_duration_us")), 15);
  EXPECT_EQ(value_of(text, series("nv_inference_compute_input_duration_us")), 10);
  EXPECT_EQ(value_of(text, series("nv_inference_compute_infer_duration_us")), 20);
  EXPECT_EQ(value_of(text, series("nv_inference_compute_output_duration_us")), 25);
  EXPECT_GE(value_of(text, series("nv_inference_request_duration_us")), 5'000);
}

TEST_F(fixture, unset_timestamps_give_zero_durations_not_huge_ones) {
  make(false);
  job_times t;
  t.arrival = now_ns();
  make_job(stats, t)->respond(output_response(true));
  auto s = stats->snapshot();
  EXPECT_EQ(s.success.count, 1u);
  EXPECT_LT(s.success.ns, 60'000'000'000u);
  EXPECT_EQ(s.queue, (duration_stat{1, 0}));
  EXPECT_EQ(s.compute_input.ns + s.compute_infer.ns + s.compute_output.ns, 0u);
}

TEST_F(fixture, executions_fill_batch_stats_and_counts) {
  make(false, 8);
  uint64_t t0 = now_ns();
  stats->record_execution(4, t0, t0 + 10, t0 + 30, t0 + 60);
  stats->record_execution(4, t0, t0 + 10, t0 + 30, t0 + 60);
  stats->record_execution(1, t0, t0 + 1, t0 + 2, t0 + 3);
  stats->record_execution(20, t0, 0, 0, t0 + 100); // above max_batch_size: overflow slot
  auto s = stats->snapshot();
  EXPECT_EQ(s.execution_count, 4u);
  EXPECT_EQ(s.inference_count, 29u);
  EXPECT_GT(s.last_inference, 0u);
  ASSERT_EQ(s.batch_stats.size(), 3u);
  EXPECT_EQ(s.batch_stats[0].batch_size, 1u);
  EXPECT_EQ(s.batch_stats[1].batch_size, 4u);
  EXPECT_EQ(s.batch_stats[1].compute_input, (duration_stat{2, 20}));
  EXPECT_EQ(s.batch_stats[1].compute_infer, (duration_stat{2, 40}));
  EXPECT_EQ(s.batch_stats[1].compute_output, (duration_stat{2, 60}));
  EXPECT_EQ(s.batch_stats[2].batch_size, 20u);
  EXPECT_EQ(s.batch_stats[2].compute_infer, (duration_stat{1, 100}));
  auto text = registry.serialize();
  EXPECT_EQ(value_of(text, series("nv_inference_exec_count")), 4);
  EXPECT_EQ(value_of(text, series("nv_inference_count")), 29);
}

TEST_F(fixture, pending_gauge_and_load_duration) {
  make(false);
  stats->on_enqueue();
  stats->on_enqueue();
  stats->on_enqueue();
  stats->on_dequeue(2);
  stats->record_load_duration(1.5);
  EXPECT_EQ(stats->pending(), 1);
  auto text = registry.serialize();
  EXPECT_EQ(value_of(text, series("nv_inference_pending_request_count")), 1);
  EXPECT_EQ(value_of(text, series("nv_model_load_duration_secs")), 1.5);
}

TEST_F(fixture, decoupled_responses_are_counted_by_index) {
  make(true);
  auto t = past_times();
  t.output_start = 0;
  auto first = make_job(stats, t);
  for (int i = 0; i < 3; ++i)
    first->respond(output_response(false));
  inference_response last;
  last.final = true;
  first->respond(std::move(last));
  auto second = make_job(stats, t);
  second->respond(output_response(false));
  second->fail(internal_error("boom"));
  make_job(stats, t)->fail(cancelled("stop"));

  auto r = stats->snapshot().response_stats;
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].success.count, 2u);
  EXPECT_EQ(r[0].cancel.count, 1u);
  EXPECT_EQ(r[0].compute_infer.count, 2u);
  EXPECT_GE(r[0].compute_infer.ns, 2u * 1'000'000 - 2 * 4'000);
  EXPECT_EQ(r[1].success.count, 1u);
  EXPECT_EQ(r[1].fail.count, 1u);
  EXPECT_EQ(r[1].compute_infer.count, 2u);
  EXPECT_EQ(r[2].success.count, 1u);
  EXPECT_EQ(r[3].empty_response.count, 1u);
  EXPECT_EQ(r[3].compute_infer.count, 0u);
  auto s = stats->snapshot();
  EXPECT_EQ(s.success.count, 1u);
  EXPECT_EQ(s.fail.count, 2u);
}

TEST_F(fixture, a_model_that_is_not_decoupled_has_no_response_stats) {
  make(false);
  make_job(stats, past_times())->respond(output_response(true));
  EXPECT_TRUE(stats->snapshot().response_stats.empty());
}

TEST(model_statistics, a_decoupled_job_observes_its_first_response_once) {
  metrics_settings settings;
  settings.histogram_latencies = true;
  metrics_registry registry{settings};
  auto stats = std::make_shared<model_statistics>("m", 1, true, 0,
                                                  registry.add_model("m", 1, {}, {true, {}}));
  auto t = past_times();
  t.arrival = now_ns() - 250'000'000; // 250 ms ago: the (100, 500] bucket
  auto job = make_job(stats, t);
  for (int i = 0; i < 3; ++i)
    job->respond(output_response(false));
  job->respond(output_response(true));
  auto text = registry.serialize();
  const std::string labels = "{model=\"m\",version=\"1\"";
  EXPECT_EQ(value_of(text, "nv_inference_first_response_histogram_ms_count" + labels + "}"), 1);
  EXPECT_EQ(value_of(text, "nv_inference_first_response_histogram_ms_bucket" + labels
                             + ",le=\"100\"}"),
            0);
  EXPECT_EQ(value_of(text, "nv_inference_first_response_histogram_ms_bucket" + labels
                             + ",le=\"500\"}"),
            1);
}

TEST(model_statistics, works_without_metrics) {
  auto stats = std::make_shared<model_statistics>("m", 2, false, 0, nullptr);
  make_job(stats, past_times())->respond(output_response(true));
  stats->record_execution(1, 1, 2, 3, 4);
  stats->on_enqueue();
  auto s = stats->snapshot();
  EXPECT_EQ(s.name, "m");
  EXPECT_EQ(s.version, 2);
  EXPECT_EQ(s.success.count, 1u);
  EXPECT_EQ(s.batch_stats.size(), 1u);
  EXPECT_EQ(stats->pending(), 1);
}

TEST_F(fixture, concurrent_completions_are_all_counted) {
  make(false);
  constexpr int threads = 4;
  constexpr int per_thread = 10'000;
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i)
    workers.emplace_back([this] {
      for (int j = 0; j < per_thread; ++j) {
        stats->on_enqueue();
        auto job = make_job(stats, past_times());
        stats->on_dequeue(1);
        stats->record_execution(1, 1, 2, 3, 4);
        job->respond(output_response(true));
      }
    });
  for (auto& w : workers)
    w.join();
  auto s = stats->snapshot();
  EXPECT_EQ(s.success.count, 40'000u);
  EXPECT_EQ(s.queue.count, 40'000u);
  EXPECT_EQ(s.queue.ns, 40'000u * 3'000);
  EXPECT_EQ(s.execution_count, 40'000u);
  ASSERT_EQ(s.batch_stats.size(), 1u);
  EXPECT_EQ(s.batch_stats[0].compute_input.count, 40'000u);
  EXPECT_EQ(stats->pending(), 0);
  auto text = registry.serialize();
  EXPECT_EQ(value_of(text, series("nv_inference_request_success")), 40'000);
  EXPECT_EQ(value_of(text, series("nv_inference_queue_duration_us")), 120'000);
  EXPECT_EQ(value_of(text, series("nv_inference_pending_request_count")), 0);
}
