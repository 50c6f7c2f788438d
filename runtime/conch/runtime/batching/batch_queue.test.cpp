#include "conch/runtime/batching/batch_queue.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

using namespace conch::runtime;
using namespace conch::runtime::batching;

namespace {

constexpr uint64_t us = 1000; // nanoseconds per microsecond
constexpr uint64_t t0 = 1'000'000'000;

struct job_spec {
  std::string id;
  uint64_t priority = 0;
  uint64_t timeout_us = 0;
  int64_t items = 1;
};

// A job whose first input has `items` as its batch dimension. Unanswered
// jobs answer UNAVAILABLE when dropped, into a callback that ignores it.
job_ptr make_job(const job_spec& spec) {
  inference_request req;
  req.model_name = "m";
  req.id = spec.id;
  req.priority = spec.priority;
  req.timeout_us = spec.timeout_us;
  tensor input;
  input.name = "INPUT0";
  input.type = data_type::fp32;
  input.shape = {spec.items, 4};
  req.inputs.push_back(std::move(input));
  return std::make_shared<inference_job>(std::move(req), [](inference_response&&) {});
}

std::vector<std::string> ids(const std::vector<job_ptr>& jobs) {
  std::vector<std::string> result;
  for (const auto& job : jobs)
    result.push_back(job->request().id);
  return result;
}

using names = std::vector<std::string>;

batcher_config dynamic_config(int32_t max_batch_size, std::vector<int32_t> preferred,
                              uint64_t delay_us) {
  batcher_config c;
  c.dynamic = true;
  c.max_batch_size = max_batch_size;
  c.preferred_batch_sizes = std::move(preferred);
  c.max_queue_delay_us = delay_us;
  return c;
}

void enqueue_ok(batch_queue& q, const job_spec& spec, uint64_t now) {
  auto s = q.enqueue(make_job(spec), now);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
}

} // namespace

// -- without dynamic batching ------------------------------------------------

TEST(batch_queue, without_dynamic_batching_serves_one_job_at_a_time_in_arrival_order) {
  batcher_config c;
  c.max_batch_size = 8;
  c.priority_levels = 3; // ignored: priorities need dynamic batching
  c.default_priority_level = 2;
  batch_queue q(c);
  enqueue_ok(q, {"a", 3}, t0);
  enqueue_ok(q, {"b", 1}, t0 + 1);
  enqueue_ok(q, {"c", 2, 0, 4}, t0 + 2);
  EXPECT_EQ(q.size(), 3u);
  for (const char* id : {"a", "b", "c"}) {
    auto d = q.next(t0 + 10);
    EXPECT_EQ(ids(d.jobs), names{id});
    EXPECT_TRUE(d.timed_out.empty());
    EXPECT_EQ(d.wake_at_ns, 0u);
  }
  EXPECT_TRUE(q.empty());
  auto d = q.next(t0 + 20);
  EXPECT_TRUE(d.jobs.empty());
  EXPECT_EQ(d.wake_at_ns, 0u);
}

TEST(batch_queue, stamps_the_queue_start_once) {
  batch_queue q(batcher_config{});
  auto fresh = make_job({"a"});
  auto requeued = make_job({"b"});
  requeued->times().queue_start = 5;
  ASSERT_TRUE(q.enqueue(fresh, t0).is_ok());
  ASSERT_TRUE(q.enqueue(requeued, t0).is_ok());
  EXPECT_EQ(fresh->times().queue_start, t0);
  EXPECT_EQ(requeued->times().queue_start, 5u);
}

TEST(batch_queue, a_job_returned_to_the_front_goes_first_even_past_a_full_level) {
  batcher_config c;
  c.max_batch_size = 8;
  c.default_policy.max_queue_size = 2;
  batch_queue q(c);
  enqueue_ok(q, {"a"}, t0);
  enqueue_ok(q, {"b"}, t0);
  auto back = make_job({"back"});
  EXPECT_FALSE(q.enqueue(back, t0).is_ok()); // the level is full for new jobs
  ASSERT_TRUE(q.return_to_front(back, t0 + 1).is_ok());
  EXPECT_EQ(q.size(), 3u);
  for (const char* id : {"back", "a", "b"})
    EXPECT_EQ(ids(q.next(t0 + 10).jobs), names{id});
}

TEST(batch_queue, a_job_returned_to_the_front_is_not_timed_again) {
  auto c = dynamic_config(8, {}, 0);
  c.default_policy.default_timeout_us = 100;
  batch_queue q(c);
  enqueue_ok(q, {"queued"}, t0);
  ASSERT_TRUE(q.return_to_front(make_job({"back"}), t0 + 1).is_ok());
  // Past the timeout of the job queued first, only that one times out.
  auto d = q.next(t0 + 200 * us);
  EXPECT_EQ(ids(d.timed_out), names{"queued"});
  EXPECT_EQ(ids(d.jobs), names{"back"});
  EXPECT_TRUE(q.empty());
}

TEST(batch_queue, rejects_a_job_larger_than_max_batch_size) {
  batch_queue q(dynamic_config(4, {}, 0));
  auto s = q.enqueue(make_job({"big", 0, 0, 5}), t0);
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_EQ(s.message(), "[request id: big] inference request batch-size must be <= 4 for 'm'");
  EXPECT_TRUE(q.empty());
}

// -- preferred sizes, max_batch_size and delay ---------------------------------

TEST(batch_queue, sends_the_largest_preferred_size_that_three_jobs_can_fill) {
  batch_queue q(dynamic_config(8, {4, 2}, 1000));
  enqueue_ok(q, {"a"}, t0);
  enqueue_ok(q, {"b"}, t0 + 1 * us);
  enqueue_ok(q, {"c"}, t0 + 2 * us);
  auto d = q.next(t0 + 3 * us);
  EXPECT_EQ(ids(d.jobs), (names{"a", "b"}));
  // "c" alone fills no preferred size; it may wait until its delay ends.
  EXPECT_EQ(d.wake_at_ns, t0 + 1002 * us);
  d = q.next(t0 + 4 * us);
  EXPECT_TRUE(d.jobs.empty());
  EXPECT_EQ(d.wake_at_ns, t0 + 1002 * us);
}

TEST(batch_queue, sends_four_jobs_at_once_when_they_fill_the_largest_preferred_size) {
  batch_queue q(dynamic_config(8, {2, 4}, 1000));
  for (const char* id : {"a", "b", "c", "d"})
    enqueue_ok(q, {id}, t0);
  auto d = q.next(t0);
  EXPECT_EQ(ids(d.jobs), (names{"a", "b", "c", "d"}));
  EXPECT_EQ(d.wake_at_ns, 0u);
  EXPECT_TRUE(q.empty());
}

TEST(batch_queue, without_a_delay_pending_jobs_go_at_once_in_preferred_chunks) {
  batch_queue q(dynamic_config(8, {2, 4}, 0));
  for (const char* id : {"a", "b", "c"})
    enqueue_ok(q, {id}, t0);
  EXPECT_EQ(ids(q.next(t0).jobs), (names{"a", "b"}));
  auto d = q.next(t0);
  EXPECT_EQ(ids(d.jobs), names{"c"});
  EXPECT_EQ(d.wake_at_ns, 0u);
}

TEST(batch_queue, without_preferred_sizes_batches_up_to_max_batch_size) {
  batch_queue q(dynamic_config(4, {}, 0));
  for (const char* id : {"a", "b", "c", "d", "e", "f"})
    enqueue_ok(q, {id}, t0);
  EXPECT_EQ(ids(q.next(t0).jobs), (names{"a", "b", "c", "d"}));
  EXPECT_EQ(ids(q.next(t0).jobs), (names{"e", "f"}));
}

TEST(batch_queue, never_exceeds_max_batch_size_with_multi_item_jobs) {
  batch_queue q(dynamic_config(8, {}, 0));
  enqueue_ok(q, {"a", 0, 0, 3}, t0);
  enqueue_ok(q, {"b", 0, 0, 3}, t0);
  enqueue_ok(q, {"c", 0, 0, 3}, t0);
  enqueue_ok(q, {"d", 0, 0, 2}, t0);
  // 3 + 3 + 3 would be 9 > 8: the batch stops at six items.
  EXPECT_EQ(ids(q.next(t0).jobs), (names{"a", "b"}));
  // 3 + 2 = 5: everything left, below the cap.
  EXPECT_EQ(ids(q.next(t0).jobs), (names{"c", "d"}));
}

TEST(batch_queue, multi_item_jobs_that_fill_max_batch_size_go_without_waiting) {
  batch_queue q(dynamic_config(8, {}, 1000));
  enqueue_ok(q, {"a", 0, 0, 4}, t0);
  auto d = q.next(t0);
  EXPECT_TRUE(d.jobs.empty());
  EXPECT_EQ(d.wake_at_ns, t0 + 1000 * us);
  enqueue_ok(q, {"b", 0, 0, 4}, t0 + 1 * us);
  EXPECT_EQ(ids(q.next(t0 + 1 * us).jobs), (names{"a", "b"}));
}

TEST(batch_queue, a_job_that_would_overshoot_the_preferred_size_closes_the_batch) {
  batch_queue q(dynamic_config(8, {4}, 1000));
  enqueue_ok(q, {"a", 0, 0, 3}, t0);
  enqueue_ok(q, {"b", 0, 0, 3}, t0);
  // Nothing can make exactly four: "a" goes now rather than wait (Triton).
  EXPECT_EQ(ids(q.next(t0).jobs), names{"a"});
}

TEST(batch_queue, waits_for_the_delay_then_flushes_what_is_pending) {
  batch_queue q(dynamic_config(8, {4}, 100));
  enqueue_ok(q, {"a"}, t0);
  enqueue_ok(q, {"b"}, t0 + 30 * us);
  auto d = q.next(t0 + 40 * us);
  EXPECT_TRUE(d.jobs.empty());
  EXPECT_EQ(d.wake_at_ns, t0 + 100 * us);
  d = q.next(t0 + 99 * us);
  EXPECT_TRUE(d.jobs.empty());
  d = q.next(t0 + 100 * us);
  EXPECT_EQ(ids(d.jobs), (names{"a", "b"}));
  EXPECT_EQ(d.wake_at_ns, 0u);
}

TEST(batch_queue, once_the_delay_is_over_everything_that_fits_goes) {
  batch_queue q(dynamic_config(8, {2}, 100));
  for (const char* id : {"a", "b", "c"})
    enqueue_ok(q, {id}, t0);
  // The instance was busy past the delay: Triton sends the batch as it is.
  EXPECT_EQ(ids(q.next(t0 + 200 * us).jobs), (names{"a", "b", "c"}));
}

TEST(batch_queue, after_a_batch_wakes_when_the_delay_of_the_rest_ends) {
  batch_queue q(dynamic_config(8, {2}, 100));
  enqueue_ok(q, {"a"}, t0);
  enqueue_ok(q, {"b"}, t0 + 10 * us);
  enqueue_ok(q, {"c"}, t0 + 20 * us);
  auto d = q.next(t0 + 20 * us);
  EXPECT_EQ(ids(d.jobs), (names{"a", "b"}));
  EXPECT_EQ(d.wake_at_ns, t0 + 120 * us);
}

// -- priorities ----------------------------------------------------------------

TEST(batch_queue, serves_the_highest_priority_first_and_fifo_within_a_level) {
  batcher_config c = dynamic_config(2, {2}, 0);
  c.priority_levels = 3;
  c.default_priority_level = 2;
  batch_queue q(c);
  enqueue_ok(q, {"low", 3}, t0);
  enqueue_ok(q, {"default", 0}, t0 + 1);
  enqueue_ok(q, {"high", 1}, t0 + 2);
  enqueue_ok(q, {"mid", 2}, t0 + 3);
  enqueue_ok(q, {"high2", 1}, t0 + 4);
  EXPECT_EQ(ids(q.next(t0 + 5).jobs), (names{"high", "high2"}));
  EXPECT_EQ(ids(q.next(t0 + 5).jobs), (names{"default", "mid"}));
  EXPECT_EQ(ids(q.next(t0 + 5).jobs), names{"low"});
}

TEST(batch_queue, an_out_of_range_priority_uses_the_default_level) {
  batcher_config c = dynamic_config(8, {}, 0);
  c.priority_levels = 3;
  c.default_priority_level = 1;
  c.level_policies[1].max_queue_size = 2;
  batch_queue q(c);
  enqueue_ok(q, {"two", 2}, t0);
  enqueue_ok(q, {"seven", 7}, t0 + 1);
  enqueue_ok(q, {"zero", 0}, t0 + 2);
  // Both landed on level 1, which is now full.
  EXPECT_EQ(q.enqueue(make_job({"one", 1}), t0 + 3).code(), errc::unavailable);
  EXPECT_EQ(ids(q.next(t0 + 4).jobs), (names{"seven", "zero", "two"}));
}

TEST(batch_queue, limits_the_queue_size_per_level) {
  batcher_config c = dynamic_config(1, {}, 0);
  c.priority_levels = 2;
  c.default_priority_level = 2;
  c.default_policy.max_queue_size = 2;
  c.level_policies[1].max_queue_size = 1;
  batch_queue q(c);
  enqueue_ok(q, {"h1", 1}, t0);
  auto s = q.enqueue(make_job({"h2", 1}), t0);
  EXPECT_EQ(s.code(), errc::unavailable);
  EXPECT_EQ(s.message(), "[request id: h2] Exceeds maximum queue size");
  enqueue_ok(q, {"l1", 2}, t0);
  enqueue_ok(q, {"l2", 2}, t0);
  s = q.enqueue(make_job({}), t0);
  EXPECT_EQ(s.code(), errc::unavailable);
  EXPECT_EQ(s.message(), "Exceeds maximum queue size");
  EXPECT_EQ(q.size(), 3u);
  // Room is made as jobs leave.
  EXPECT_EQ(ids(q.next(t0).jobs), names{"h1"});
  enqueue_ok(q, {"h3", 1}, t0);
}

TEST(batch_queue, an_unbounded_queue_takes_many_jobs) {
  batch_queue q(dynamic_config(4, {}, 0));
  for (int i = 0; i < 1000; ++i)
    enqueue_ok(q, {std::to_string(i)}, t0 + static_cast<uint64_t>(i));
  EXPECT_EQ(q.size(), 1000u);
  size_t served = 0;
  while (!q.empty()) {
    auto d = q.next(t0 + 2000);
    ASSERT_EQ(d.jobs.size(), 4u);
    EXPECT_EQ(d.jobs.front()->request().id, std::to_string(served));
    served += d.jobs.size();
  }
  EXPECT_EQ(served, 1000u);
}

// -- timeouts ------------------------------------------------------------------

TEST(batch_queue, rejects_jobs_whose_default_timeout_passed) {
  batcher_config c = dynamic_config(4, {4}, 1000);
  c.default_policy.default_timeout_us = 100;
  batch_queue q(c);
  enqueue_ok(q, {"a"}, t0);
  enqueue_ok(q, {"b"}, t0 + 60 * us);
  EXPECT_EQ(q.next_deadline(), t0 + 100 * us);
  auto d = q.next(t0 + 50 * us);
  EXPECT_TRUE(d.jobs.empty());
  // The deadline comes before the end of the batching delay.
  EXPECT_EQ(d.wake_at_ns, t0 + 100 * us);
  d = q.next(t0 + 100 * us);
  EXPECT_EQ(ids(d.timed_out), names{"a"});
  EXPECT_TRUE(d.jobs.empty());
  EXPECT_EQ(d.wake_at_ns, t0 + 160 * us);
  EXPECT_EQ(q.size(), 1u);
  d = q.next(t0 + 160 * us);
  EXPECT_EQ(ids(d.timed_out), names{"b"});
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_deadline(), 0u);
}

TEST(batch_queue, a_batch_leaves_a_wake_up_for_the_deadlines_of_the_rest) {
  batcher_config c;
  c.default_policy.default_timeout_us = 100;
  batch_queue q(c);
  enqueue_ok(q, {"a"}, t0);
  enqueue_ok(q, {"b"}, t0 + 10 * us);
  auto d = q.next(t0 + 20 * us);
  EXPECT_EQ(ids(d.jobs), names{"a"});
  EXPECT_EQ(d.wake_at_ns, t0 + 110 * us);
  d = q.next(t0 + 110 * us);
  EXPECT_TRUE(d.jobs.empty());
  EXPECT_EQ(ids(d.timed_out), names{"b"});
}

TEST(batch_queue, delays_timed_out_jobs_behind_the_others_of_their_level) {
  batcher_config c = dynamic_config(2, {2}, 0);
  c.default_policy.action = timeout_action::delay;
  c.default_policy.default_timeout_us = 100;
  batch_queue q(c);
  enqueue_ok(q, {"late"}, t0);
  enqueue_ok(q, {"b"}, t0 + 150 * us);
  enqueue_ok(q, {"c"}, t0 + 160 * us);
  auto d = q.next(t0 + 200 * us);
  EXPECT_TRUE(d.timed_out.empty());
  EXPECT_EQ(ids(d.jobs), (names{"b", "c"}));
  EXPECT_EQ(q.size(), 1u);
  enqueue_ok(q, {"d"}, t0 + 210 * us);
  EXPECT_EQ(ids(q.next(t0 + 220 * us).jobs), (names{"d", "late"}));
}

TEST(batch_queue, a_delayed_job_keeps_its_place_ahead_of_lower_levels) {
  // Triton keeps one delayed queue per priority level: a delayed level-1 job
  // still goes before level-2 work.
  batcher_config c = dynamic_config(1, {}, 0);
  c.priority_levels = 2;
  c.default_priority_level = 2;
  c.level_policies[1].action = timeout_action::delay;
  c.level_policies[1].default_timeout_us = 100;
  batch_queue q(c);
  enqueue_ok(q, {"high-late", 1}, t0);
  enqueue_ok(q, {"high", 1}, t0 + 150 * us);
  enqueue_ok(q, {"low", 2}, t0 + 150 * us);
  EXPECT_EQ(ids(q.next(t0 + 200 * us).jobs), names{"high"});
  EXPECT_EQ(ids(q.next(t0 + 200 * us).jobs), names{"high-late"});
  EXPECT_EQ(ids(q.next(t0 + 200 * us).jobs), names{"low"});
}

TEST(batch_queue, a_request_may_lower_the_timeout_when_overrides_are_allowed) {
  batcher_config c = dynamic_config(4, {4}, 10'000);
  c.default_policy.default_timeout_us = 1000;
  c.default_policy.allow_timeout_override = true;
  batch_queue q(c);
  enqueue_ok(q, {"long", 0, 500}, t0);
  enqueue_ok(q, {"short", 0, 100}, t0);
  enqueue_ok(q, {"raise", 0, 5000}, t0); // may not raise: keeps 1000 us
  EXPECT_EQ(q.next_deadline(), t0 + 100 * us);
  auto d = q.next(t0 + 100 * us);
  EXPECT_EQ(ids(d.timed_out), names{"short"});
  EXPECT_EQ(d.wake_at_ns, t0 + 500 * us);
  d = q.next(t0 + 500 * us);
  EXPECT_EQ(ids(d.timed_out), names{"long"});
  EXPECT_EQ(q.next_deadline(), t0 + 1000 * us);
  d = q.next(t0 + 1000 * us);
  EXPECT_EQ(ids(d.timed_out), names{"raise"});
}

TEST(batch_queue, a_request_timeout_is_ignored_when_overrides_are_not_allowed) {
  batcher_config c = dynamic_config(4, {4}, 10'000);
  c.default_policy.default_timeout_us = 1000;
  batch_queue q(c);
  enqueue_ok(q, {"a", 0, 100}, t0);
  EXPECT_EQ(q.next_deadline(), t0 + 1000 * us);
  EXPECT_TRUE(q.next(t0 + 100 * us).timed_out.empty());
}

TEST(batch_queue, without_a_default_timeout_a_request_timeout_has_no_effect) {
  // Triton only lets a request shorten an existing timeout.
  batcher_config c = dynamic_config(4, {4}, 10'000);
  c.default_policy.allow_timeout_override = true;
  batch_queue q(c);
  enqueue_ok(q, {"a", 0, 100}, t0);
  EXPECT_EQ(q.next_deadline(), 0u);
  auto d = q.next(t0 + 200 * us);
  EXPECT_TRUE(d.timed_out.empty());
  EXPECT_EQ(d.wake_at_ns, t0 + 10'000 * us);
}

TEST(batch_queue, take_expired_applies_timeouts_without_forming_a_batch) {
  batcher_config c = dynamic_config(4, {}, 0);
  c.default_policy.default_timeout_us = 100;
  batch_queue q(c);
  enqueue_ok(q, {"a"}, t0);
  enqueue_ok(q, {"b"}, t0 + 50 * us);
  EXPECT_TRUE(q.take_expired(t0 + 99 * us).empty());
  EXPECT_EQ(ids(q.take_expired(t0 + 100 * us)), names{"a"});
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.next_deadline(), t0 + 150 * us);
}

// -- cancellation and draining -------------------------------------------------

TEST(batch_queue, take_cancelled_removes_only_cancelled_jobs) {
  batcher_config c = dynamic_config(8, {}, 0);
  c.default_policy.default_timeout_us = 100;
  c.default_policy.allow_timeout_override = true;
  batch_queue q(c);
  auto b = make_job({"b", 0, 10});
  enqueue_ok(q, {"a"}, t0);
  ASSERT_TRUE(q.enqueue(b, t0).is_ok());
  enqueue_ok(q, {"c"}, t0);
  EXPECT_TRUE(q.take_cancelled().empty());
  b->cancel();
  EXPECT_EQ(ids(q.take_cancelled()), names{"b"});
  EXPECT_EQ(q.size(), 2u);
  // The cancelled job's deadline went with it.
  EXPECT_EQ(q.next_deadline(), t0 + 100 * us);
  EXPECT_EQ(ids(q.next(t0).jobs), (names{"a", "c"}));
}

TEST(batch_queue, take_all_empties_every_level_in_service_order) {
  batcher_config c = dynamic_config(8, {8}, 1000);
  c.priority_levels = 2;
  c.default_priority_level = 2;
  c.default_policy.default_timeout_us = 50;
  c.default_policy.action = timeout_action::delay;
  batch_queue q(c);
  enqueue_ok(q, {"low"}, t0);
  enqueue_ok(q, {"high", 1}, t0);
  EXPECT_TRUE(q.next(t0 + 60 * us).jobs.empty()); // both delayed, waiting
  enqueue_ok(q, {"high2", 1}, t0 + 60 * us);
  EXPECT_EQ(ids(q.take_all()), (names{"high2", "high", "low"}));
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_deadline(), 0u);
  auto d = q.next(t0 + 100 * us);
  EXPECT_TRUE(d.jobs.empty());
  EXPECT_EQ(d.wake_at_ns, 0u);
}

TEST(batch_queue, a_dropped_queue_answers_its_jobs_unavailable) {
  std::vector<inference_response> answers;
  {
    batch_queue q(batcher_config{});
    auto job = std::make_shared<inference_job>(inference_request{},
                                               [&](inference_response&& r) {
                                                 answers.push_back(std::move(r));
                                               });
    ASSERT_TRUE(q.enqueue(std::move(job), t0).is_ok());
  }
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].error.code(), errc::unavailable);
}
