#include "conch/actors/scheduling/late_answers.hpp"

#include <gtest/gtest.h>

using namespace conch;
using namespace conch::actors;

namespace {

runtime::job_ptr make_job() {
  return std::make_shared<runtime::inference_job>(runtime::inference_request{}, nullptr);
}

void answer(const runtime::job_ptr& job) {
  runtime::inference_response r;
  r.final = true;
  job->respond(std::move(r));
}

} // namespace

TEST(late_answers, pending_until_each_expected_job_completes) {
  late_answers late{caf::actor_addr{}};
  EXPECT_FALSE(late.pending());
  auto a = make_job();
  auto b = make_job();
  late.expect(a);
  late.expect(b);
  EXPECT_TRUE(late.pending());
  answer(a);
  EXPECT_TRUE(late.pending());
  answer(b);
  EXPECT_FALSE(late.pending());
}

TEST(late_answers, a_completed_job_is_not_waited_for) {
  late_answers late{caf::actor_addr{}};
  auto a = make_job();
  answer(a);
  late.expect(a);
  EXPECT_FALSE(late.pending());
}

TEST(late_answers, cancel_all_cancels_and_forgets) {
  late_answers late{caf::actor_addr{}};
  auto a = make_job();
  late.expect(a);
  late.cancel_all();
  EXPECT_TRUE(a->is_cancelled());
  EXPECT_FALSE(late.pending());
  answer(a);
}

TEST(late_answers, a_dropped_job_is_not_waited_for) {
  late_answers late{caf::actor_addr{}};
  late.expect(make_job());  // answered UNAVAILABLE as it is destroyed
  EXPECT_FALSE(late.pending());
}
