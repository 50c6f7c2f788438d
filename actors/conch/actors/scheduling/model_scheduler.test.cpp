#include "conch/actors/scheduling/model_scheduler.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <caf/send.hpp>
#include <gtest/gtest.h>

#include "conch/actors/test/deterministic_fixture.hpp"

using namespace conch::runtime;
using namespace std::chrono_literals;

namespace conch::actors {
namespace {

// Records the request ids of every batch and answers each job at once, or,
// with `hold`, keeps the jobs unanswered as a decoupled model may.
struct recording_log {
  std::vector<std::vector<std::string>> batches;
  bool hold = false;
  std::vector<job_ptr> held;
  int created = 0;
  bool blocking = false;
};

class recording_instance : public backends::backend_instance {
 public:
  explicit recording_instance(std::shared_ptr<recording_log> log) : log_(std::move(log)) {}
  void execute(backends::batch& jobs) override {
    std::vector<std::string> ids;
    for (auto& job : jobs) {
      ids.push_back(job->request().id);
      if (log_->hold) {
        log_->held.push_back(job);
        continue;
      }
      inference_response r;
      r.final = true;
      job->respond(std::move(r));
    }
    log_->batches.push_back(std::move(ids));
  }

 private:
  std::shared_ptr<recording_log> log_;
};

class recording_model : public backends::backend_model {
 public:
  explicit recording_model(std::shared_ptr<recording_log> log) : log_(std::move(log)) {}
  result<std::unique_ptr<backends::backend_instance>>
  create_instance(const backends::instance_context&) override {
    ++log_->created;
    return std::unique_ptr<backends::backend_instance>{new recording_instance(log_)};
  }
  bool blocking() const noexcept override { return log_->blocking; }

 private:
  std::shared_ptr<recording_log> log_;
};

struct outcome {
  std::vector<std::pair<std::string, errc>> answers;
  response_callback callback(std::string id) {
    return [this, id](inference_response&& r) {
      if (r.final)
        answers.emplace_back(id, r.error.code());
    };
  }
  errc code_of(const std::string& id) const {
    for (auto& [i, c] : answers)
      if (i == id)
        return c;
    return errc::unknown;
  }
};

struct scheduler_test : test::deterministic_fixture {
  std::shared_ptr<recording_log> log = std::make_shared<recording_log>();
  outcome out;
  inference::ModelConfig config;
  scheduler_actor scheduler;
  /// The direct lane the scheduler lends to; none unless a test sets one.
  std::shared_ptr<direct_lane> lane;

  scheduler_test() {
    config.set_name("m");
    config.set_max_batch_size(8);
    auto* group = config.add_instance_group();
    group->set_name("m");
    group->set_count(1);
    group->set_kind(inference::ModelInstanceGroup::KIND_CPU);
  }

  ~scheduler_test() override {
    if (scheduler) {
      caf::anon_send_exit(scheduler, caf::exit_reason::user_shutdown);
      run();
    }
  }

  void start() {
    scheduler_spec spec;
    spec.context.config = std::make_shared<const inference::ModelConfig>(config);
    spec.context.name = "m";
    spec.context.version = 1;
    auto l = log;
    spec.factory = [l](const backends::model_context&)
      -> result<std::unique_ptr<backends::backend_model>> {
      return std::unique_ptr<backends::backend_model>{new recording_model(l)};
    };
    spec.stats = std::make_shared<statistics::model_statistics>("m", 1, false, 8, nullptr);
    spec.allow_detached = false;
    spec.lane = lane;
    scheduler = sys.spawn<model_scheduler>(std::move(spec));
    status loaded = internal_error("no answer");
    auto self = sys.spawn([&](caf::event_based_actor* s) {
      s->request(scheduler, caf::infinite, init_atom_v).then([&](status& st) { loaded = st; });
    });
    run();
    ASSERT_TRUE(loaded) << loaded.to_string();
  }

  job_ptr make_job(const std::string& id, uint64_t priority = 0, uint64_t timeout_us = 0) {
    inference_request r;
    r.model_name = "m";
    r.id = id;
    r.priority = priority;
    r.timeout_us = timeout_us;
    return std::make_shared<inference_job>(std::move(r), out.callback(id));
  }

  job_ptr submit(const std::string& id, uint64_t priority = 0, uint64_t timeout_us = 0) {
    auto job = make_job(id, priority, timeout_us);
    caf::anon_send(scheduler, job);
    return job;
  }

  /// Runs `id` on leased instance `index`, as a submitting thread does.
  void run_leased(size_t index, const std::string& id) {
    backends::batch jobs{make_job(id)};
    lane->bound(index).instance->execute(jobs);
  }

  /// Ends the lease of `index` and, when the lane says so, sends the credit.
  void release(size_t index, bool crashed = false) {
    if (lane->release(index, crashed))
      caf::anon_send(scheduler, credit_atom_v, index, crashed);
    run();
  }

  void dynamic_batching(std::vector<int> preferred, uint64_t delay_us) {
    auto* db = config.mutable_dynamic_batching();
    for (auto p : preferred)
      db->add_preferred_batch_size(p);
    db->set_max_queue_delay_microseconds(delay_us);
  }
};

TEST_F(scheduler_test, without_dynamic_batching_runs_one_request_per_execute_in_order) {
  start();
  for (auto id : {"a", "b", "c"})
    submit(id);
  run();
  ASSERT_EQ(log->batches.size(), 3u);
  EXPECT_EQ(log->batches[0], std::vector<std::string>{"a"});
  EXPECT_EQ(log->batches[2], std::vector<std::string>{"c"});
  ASSERT_EQ(out.answers.size(), 3u);
  EXPECT_EQ(out.answers[0].first, "a");
  EXPECT_EQ(out.answers[2].first, "c");
}

TEST_F(scheduler_test, dynamic_batcher_waits_for_the_queue_delay_then_sends_the_batch) {
  dynamic_batching({4}, 1000);
  start();
  for (auto id : {"a", "b", "c"})
    submit(id);
  run();
  EXPECT_TRUE(log->batches.empty()) << "a batch left before the queue delay";
  advance(999us);
  EXPECT_TRUE(log->batches.empty());
  advance(1us);
  ASSERT_EQ(log->batches.size(), 1u);
  EXPECT_EQ(log->batches[0], (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(scheduler_test, a_preferred_size_goes_at_once) {
  dynamic_batching({2, 4}, 1'000'000);
  start();
  for (auto id : {"a", "b", "c", "d"})
    submit(id);
  run();
  ASSERT_FALSE(log->batches.empty());
  EXPECT_EQ(log->batches[0].size() % 2, 0u);
  size_t total = 0;
  for (auto& b : log->batches) {
    EXPECT_LE(b.size(), 4u);
    total += b.size();
  }
  EXPECT_EQ(total, 4u);
}

TEST_F(scheduler_test, higher_priority_requests_are_batched_first) {
  dynamic_batching({8}, 1000);
  auto* db = config.mutable_dynamic_batching();
  db->set_priority_levels(3);
  db->set_default_priority_level(2);
  start();
  submit("low", 3);
  submit("default", 0);
  submit("high", 1);
  submit("out_of_range", 9);
  run();
  advance(1ms);
  ASSERT_EQ(log->batches.size(), 1u);
  EXPECT_EQ(log->batches[0], (std::vector<std::string>{"high", "default", "out_of_range", "low"}));
}

TEST_F(scheduler_test, a_full_queue_rejects_with_unavailable) {
  dynamic_batching({8}, 10'000);
  config.mutable_dynamic_batching()->mutable_default_queue_policy()->set_max_queue_size(2);
  start();
  submit("a");
  submit("b");
  submit("c");
  run();
  EXPECT_EQ(out.code_of("c"), errc::unavailable);
  advance(10ms);
  EXPECT_EQ(out.code_of("a"), errc::ok);
  EXPECT_EQ(out.code_of("b"), errc::ok);
}

TEST_F(scheduler_test, a_queue_timeout_rejects_a_waiting_request) {
  dynamic_batching({8}, 10'000);
  auto* policy = config.mutable_dynamic_batching()->mutable_default_queue_policy();
  policy->set_default_timeout_microseconds(500);
  policy->set_timeout_action(inference::ModelQueuePolicy::REJECT);
  start();
  submit("a");
  run();
  advance(400us);
  EXPECT_TRUE(out.answers.empty());
  advance(100us);
  ASSERT_EQ(out.answers.size(), 1u);
  EXPECT_EQ(out.code_of("a"), errc::unavailable);
  EXPECT_TRUE(log->batches.empty());
}

TEST_F(scheduler_test, a_cancelled_queued_request_is_answered_at_once) {
  dynamic_batching({8}, 1'000'000);
  start();
  auto job = submit("a");
  submit("b");
  run();
  job->cancel();
  run();
  EXPECT_EQ(out.code_of("a"), errc::cancelled);
  EXPECT_EQ(out.code_of("b"), errc::unknown) << "b must still wait";
  advance(1s);
  EXPECT_EQ(out.code_of("b"), errc::ok);
  ASSERT_EQ(log->batches.size(), 1u);
  EXPECT_EQ(log->batches[0], std::vector<std::string>{"b"});
}

TEST_F(scheduler_test, stop_finishes_queued_work_then_refuses_new_requests) {
  dynamic_batching({8}, 5000);
  start();
  submit("a");
  submit("b");
  run();
  status drained = internal_error("no answer");
  sys.spawn([&](caf::event_based_actor* s) {
    s->request(scheduler, caf::infinite, stop_atom_v).then([&](status& st) { drained = st; });
  });
  run();
  EXPECT_FALSE(drained) << "stop answered while work was queued";
  advance(5ms);
  EXPECT_TRUE(drained) << drained.to_string();
  EXPECT_EQ(out.code_of("a"), errc::ok);
  EXPECT_EQ(out.code_of("b"), errc::ok);
  scheduler = nullptr;
}

TEST_F(scheduler_test, stop_waits_for_decoupled_jobs_answered_after_their_batch) {
  config.set_max_batch_size(0);
  config.mutable_model_transaction_policy()->set_decoupled(true);
  log->hold = true;
  start();
  submit("a");
  run();
  ASSERT_EQ(log->held.size(), 1u);
  status drained = internal_error("no answer");
  sys.spawn([&](caf::event_based_actor* s) {
    s->request(scheduler, caf::infinite, stop_atom_v).then([&](status& st) { drained = st; });
  });
  run();
  advance(20ms);
  EXPECT_FALSE(drained) << "stop answered while a decoupled job was unanswered";
  inference_response r;
  r.final = true;
  log->held[0]->respond(std::move(r));
  run(); // the final response wakes the drain: no timer is needed
  EXPECT_TRUE(drained) << drained.to_string();
  scheduler = nullptr;
}

TEST_F(scheduler_test, abort_cancels_decoupled_jobs_answered_after_their_batch) {
  config.set_max_batch_size(0);
  config.mutable_model_transaction_policy()->set_decoupled(true);
  log->hold = true;
  start();
  submit("a");
  run();
  ASSERT_EQ(log->held.size(), 1u);
  EXPECT_FALSE(log->held[0]->is_cancelled());
  caf::anon_send(scheduler, abort_atom_v);
  run();
  EXPECT_TRUE(log->held[0]->is_cancelled());
  log->held[0]->fail(cancelled("request cancelled"), failure_kind::cancelled);
  scheduler = nullptr;
}

TEST_F(scheduler_test, several_instances_with_preserve_ordering_answer_in_request_order) {
  config.mutable_instance_group(0)->set_count(3);
  config.mutable_dynamic_batching()->set_preserve_ordering(true);
  start();
  for (auto id : {"a", "b", "c", "d", "e", "f"})
    submit(id);
  run();
  ASSERT_EQ(out.answers.size(), 6u);
  std::vector<std::string> order;
  for (auto& [id, code] : out.answers)
    order.push_back(id);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
}

TEST_F(scheduler_test, a_model_whose_instances_fail_to_start_reports_the_reason) {
  scheduler_spec spec;
  spec.context.config = std::make_shared<const inference::ModelConfig>(config);
  spec.context.name = "m";
  spec.factory = [](const backends::model_context&)
    -> result<std::unique_ptr<backends::backend_model>> {
    return invalid_argument("weights are missing");
  };
  spec.stats = std::make_shared<statistics::model_statistics>("m", 1, false, 8, nullptr);
  spec.allow_detached = false;
  auto s = sys.spawn<model_scheduler>(std::move(spec));
  status loaded;
  sys.spawn([&](caf::event_based_actor* self) {
    self->request(s, caf::infinite, init_atom_v).then([&](status& st) { loaded = st; });
  });
  run();
  EXPECT_EQ(loaded.code(), errc::invalid_argument);
  EXPECT_NE(loaded.message().find("weights are missing"), std::string::npos);
}

// -- the direct lane ------------------------------------------------------------

TEST_F(scheduler_test, lends_its_idle_instance_to_the_lane_once_loaded) {
  lane = std::make_shared<direct_lane>(1);
  start();
  auto index = lane->try_lease();
  ASSERT_TRUE(index);
  run_leased(*index, "inline");
  ASSERT_EQ(log->batches.size(), 1u);
  EXPECT_EQ(log->batches[0], std::vector<std::string>{"inline"});
  EXPECT_EQ(out.code_of("inline"), errc::ok);
  release(*index);
  EXPECT_TRUE(lane->try_lease()) << "not wanted back: parked again";
}

TEST_F(scheduler_test, a_queued_request_recalls_the_lane_and_waits_for_a_leased_instance) {
  lane = std::make_shared<direct_lane>(1);
  start();
  auto index = lane->try_lease();
  ASSERT_TRUE(index);
  submit("queued");
  run();
  EXPECT_TRUE(log->batches.empty()) << "ran on a leased instance";
  EXPECT_FALSE(lane->try_lease()) << "a lane with queued work lends nothing";
  ASSERT_TRUE(lane->release(*index, false)) << "the scheduler wants it back";
  caf::anon_send(scheduler, credit_atom_v, *index, false);
  run();
  ASSERT_EQ(log->batches.size(), 1u);
  EXPECT_EQ(out.code_of("queued"), errc::ok);
  EXPECT_TRUE(lane->try_lease()) << "the queue is empty again: lent again";
}

TEST_F(scheduler_test, stop_waits_for_a_leased_instance) {
  lane = std::make_shared<direct_lane>(1);
  start();
  auto index = lane->try_lease();
  ASSERT_TRUE(index);
  status drained = internal_error("no answer");
  sys.spawn([&](caf::event_based_actor* s) {
    s->request(scheduler, caf::infinite, stop_atom_v).then([&](status& st) { drained = st; });
  });
  run();
  EXPECT_FALSE(drained) << "stop answered while an instance was leased";
  run_leased(*index, "last");
  release(*index);
  EXPECT_TRUE(drained) << drained.to_string();
  EXPECT_EQ(out.code_of("last"), errc::ok);
  EXPECT_FALSE(lane->try_lease()) << "a drained model lends nothing";
  scheduler = nullptr;
}

TEST_F(scheduler_test, an_instance_that_crashed_on_the_lane_is_replaced) {
  lane = std::make_shared<direct_lane>(1);
  start();
  ASSERT_EQ(log->created, 1);
  auto index = lane->try_lease();
  ASSERT_TRUE(index);
  auto first = lane->bound(*index).instance;
  release(*index, true);
  EXPECT_EQ(log->created, 2);
  auto again = lane->try_lease();
  ASSERT_TRUE(again) << "the replacement is lent";
  EXPECT_NE(lane->bound(*again).instance, first);
  release(*again);
}

// A model that may block is lent only with a worker of its own to run on
// (blocking_instance); one that runs in an instance actor is not.
TEST_F(scheduler_test, a_blocking_model_without_a_worker_lends_nothing) {
  lane = std::make_shared<direct_lane>(1);
  log->blocking = true;
  start();
  EXPECT_FALSE(lane->try_lease());
  submit("a");
  run();
  EXPECT_EQ(out.code_of("a"), errc::ok);
  EXPECT_FALSE(lane->try_lease());
}

} // namespace
} // namespace conch::actors
