#include "conch/runtime/inference_job.hpp"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

using namespace conch::runtime;

namespace {

struct recorder {
  std::vector<inference_response> responses;
  response_callback callback() {
    return [this](inference_response&& r) { responses.push_back(std::move(r)); };
  }
};

struct counting_observer : job_observer {
  int responses = 0;
  int completions = 0;
  status last;
  void on_response(const inference_job&, const inference_response&, uint64_t) override { ++responses; }
  void on_complete(const inference_job&, const status& s, uint64_t) override {
    ++completions;
    last = s;
  }
};

} // namespace

TEST(inference_job, answers_exactly_once_with_a_final_response) {
  recorder rec;
  auto obs = std::make_shared<counting_observer>();
  {
    inference_request req;
    req.model_name = "m";
    req.id = "7";
    auto job = std::make_shared<inference_job>(std::move(req), rec.callback());
    job->set_model_observer(obs);
    job->resolve(3);
    inference_response r;
    r.final = true;
    job->respond(std::move(r));
    job->fail(internal_error("late"));
    EXPECT_TRUE(job->completed());
  }
  ASSERT_EQ(rec.responses.size(), 1u);
  EXPECT_EQ(rec.responses[0].model_name, "m");
  EXPECT_EQ(rec.responses[0].model_version, 3);
  EXPECT_EQ(rec.responses[0].id, "7");
  EXPECT_TRUE(rec.responses[0].error.is_ok());
  EXPECT_EQ(obs->completions, 1);
}

TEST(inference_job, a_dropped_job_answers_unavailable) {
  recorder rec;
  { auto job = std::make_shared<inference_job>(inference_request{}, rec.callback()); }
  ASSERT_EQ(rec.responses.size(), 1u);
  EXPECT_EQ(rec.responses[0].error.code(), errc::unavailable);
  EXPECT_TRUE(rec.responses[0].final);
}

TEST(inference_job, decoupled_responses_then_final) {
  recorder rec;
  auto obs = std::make_shared<counting_observer>();
  auto job = std::make_shared<inference_job>(inference_request{}, rec.callback());
  job->set_model_observer(obs);
  for (int i = 0; i < 3; ++i)
    job->respond(inference_response{});
  inference_response last;
  last.final = true;
  job->respond(std::move(last));
  job->respond(inference_response{});
  EXPECT_EQ(rec.responses.size(), 4u);
  EXPECT_EQ(obs->responses, 4);
  EXPECT_EQ(obs->completions, 1);
  EXPECT_EQ(job->response_count(), 4u);
}

// A decoupled backend's thread keeps streaming while its owner gives up on
// the job: the callback is never entered by two threads at once, the
// abandoning error is the one final response, and nothing follows it.
TEST(inference_job, abandon_races_with_a_streaming_backend) {
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> inside{0};
    std::atomic<bool> overlapped{false};
    std::vector<inference_response> seen;
    auto obs = std::make_shared<counting_observer>();
    auto job = std::make_shared<inference_job>(inference_request{}, [&](inference_response&& r) {
      if (inside.fetch_add(1) != 0)
        overlapped = true;
      seen.push_back(std::move(r));
      inside.fetch_sub(1);
    });
    job->set_model_observer(obs);
    std::atomic<bool> go{false};
    std::thread backend{[&] {
      while (!go.load()) {
      }
      for (int i = 0; i < 200 && !job->completed(); ++i)
        job->respond(inference_response{});
    }};
    go = true;
    job->abandon(unavailable("abandoned"));
    backend.join();
    EXPECT_FALSE(overlapped);
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(seen.back().final);
    EXPECT_EQ(seen.back().error.code(), errc::unavailable);
    EXPECT_EQ(job->failure(), failure_kind::other);
    EXPECT_EQ(obs->completions, 1);
    EXPECT_EQ(static_cast<int>(seen.size()), obs->responses);
  }
}

TEST(inference_job, cancel_flag_and_failure_kind) {
  recorder rec;
  auto job = std::make_shared<inference_job>(inference_request{}, rec.callback());
  EXPECT_FALSE(job->is_cancelled());
  job->cancel();
  EXPECT_TRUE(job->is_cancelled());
  job->fail(cancelled("request cancelled"), failure_kind::other);
  EXPECT_EQ(job->failure(), failure_kind::cancelled);
  ASSERT_EQ(rec.responses.size(), 1u);
  EXPECT_EQ(rec.responses[0].error.code(), errc::cancelled);
}

namespace {

struct holding_router : response_router {
  std::vector<std::pair<job_ptr, inference_response>> held;
  void route(job_ptr job, inference_response&& r) override { held.emplace_back(job, std::move(r)); }
};

} // namespace

TEST(inference_job, a_router_takes_responses_until_it_delivers) {
  recorder rec;
  auto router = std::make_shared<holding_router>();
  auto job = std::make_shared<inference_job>(inference_request{}, rec.callback());
  job->set_router(router);
  inference_response r;
  r.final = true;
  job->respond(std::move(r));
  EXPECT_TRUE(rec.responses.empty());
  ASSERT_EQ(router->held.size(), 1u);
  job->deliver(std::move(router->held[0].second));
  EXPECT_EQ(rec.responses.size(), 1u);
  EXPECT_TRUE(job->completed());
  router->held.clear();
}

namespace {

struct counting_completion : completion_listener {
  std::atomic<int> told{0};
  void on_completed() noexcept override { ++told; }
};

} // namespace

TEST(inference_job, a_completion_listener_is_told_once_at_the_final_response) {
  recorder rec;
  auto job = std::make_shared<inference_job>(inference_request{}, rec.callback());
  auto listener = std::make_shared<counting_completion>();
  ASSERT_TRUE(job->set_completion_listener(listener));
  inference_response partial;
  job->respond(std::move(partial));
  EXPECT_EQ(listener->told.load(), 0) << "a response that is not final completes nothing";
  inference_response last;
  last.final = true;
  job->respond(std::move(last));
  job->fail(internal_error("late"));
  EXPECT_EQ(listener->told.load(), 1);
  EXPECT_FALSE(job->set_completion_listener(listener)) << "the job has completed";
  EXPECT_EQ(listener->told.load(), 1);
}

TEST(inference_job, a_completion_listener_set_while_another_thread_answers_is_told_or_refused) {
  // Either the setter sees the job completed (false) or the answer sees the
  // listener: never neither, never both.
  for (int round = 0; round < 200; ++round) {
    auto job = std::make_shared<inference_job>(inference_request{}, nullptr);
    auto listener = std::make_shared<counting_completion>();
    std::thread answerer([&] {
      inference_response r;
      r.final = true;
      job->respond(std::move(r));
    });
    bool kept = job->set_completion_listener(listener);
    answerer.join();
    EXPECT_EQ(listener->told.load(), kept ? 1 : 0) << "round " << round;
  }
}
