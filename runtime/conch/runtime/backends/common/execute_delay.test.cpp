#include "conch/runtime/backends/common/execute_delay.hpp"

#include <chrono>

#include <gtest/gtest.h>

#include "conch/runtime/backends/test_support/harness.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::test_support;
using namespace std::chrono_literals;

namespace {

using clock_type = std::chrono::steady_clock;

job_ptr job_with_delay_parameter(std::optional<int64_t> ms) {
  inference_request request;
  if (ms)
    request.parameters.push_back({"execute_delay_ms", *ms});
  return make_job(std::move(request), std::make_shared<response_log>());
}

common::execute_delay delay_of(const std::string& value) {
  auto config = make_config("m", "identity");
  set_parameter(config, "execute_delay_ms", value);
  auto delay = common::execute_delay::from_config(config);
  EXPECT_TRUE(delay) << delay.error().to_string();
  return *delay;
}

} // namespace

TEST(execute_delay, is_off_when_the_config_does_not_set_it) {
  auto delay = common::execute_delay::from_config(make_config("m", "identity"));
  ASSERT_TRUE(delay);
  EXPECT_FALSE(delay->configured());
  // Without the configuration's consent a request cannot make the model wait.
  EXPECT_EQ(delay->delay_for(*job_with_delay_parameter(50)), 0ms);
}

TEST(execute_delay, setting_it_enables_request_overrides) {
  auto delay = delay_of("0");
  EXPECT_TRUE(delay.configured());
  EXPECT_EQ(delay.default_delay(), 0ms);
  EXPECT_EQ(delay.delay_for(*job_with_delay_parameter(std::nullopt)), 0ms);
  EXPECT_EQ(delay.delay_for(*job_with_delay_parameter(25)), 25ms);
  EXPECT_EQ(delay.delay_for(*job_with_delay_parameter(-3)), 0ms);
  EXPECT_EQ(delay_of("15").delay_for(*job_with_delay_parameter(std::nullopt)), 15ms);
}

TEST(execute_delay, an_invalid_value_is_a_load_error_naming_the_parameter) {
  auto config = make_config("m", "identity");
  set_parameter(config, "execute_delay_ms", "soon");
  auto delay = common::execute_delay::from_config(config);
  ASSERT_FALSE(delay);
  EXPECT_EQ(delay.error().code(), errc::invalid_argument);
  EXPECT_NE(delay.error().message().find("execute_delay_ms"), std::string::npos);
}

TEST(execute_delay, waits_the_longest_delay_of_the_batch) {
  auto delay = delay_of("0");
  batch jobs{job_with_delay_parameter(5), job_with_delay_parameter(30)};
  auto start = clock_type::now();
  EXPECT_TRUE(delay.wait(jobs));
  EXPECT_GE(clock_type::now() - start, 30ms);
}

TEST(execute_delay, a_fully_cancelled_batch_stops_waiting) {
  auto delay = delay_of("600000");
  batch jobs{job_with_delay_parameter(std::nullopt), job_with_delay_parameter(std::nullopt)};
  for (auto& job : jobs)
    job->cancel();
  auto start = clock_type::now();
  EXPECT_FALSE(delay.wait(jobs));
  EXPECT_LT(clock_type::now() - start, 10s);
}

TEST(execute_delay, one_live_job_keeps_the_batch_waiting) {
  auto delay = delay_of("30");
  batch jobs{job_with_delay_parameter(std::nullopt), job_with_delay_parameter(std::nullopt)};
  jobs[0]->cancel();
  auto start = clock_type::now();
  EXPECT_TRUE(delay.wait(jobs));
  EXPECT_GE(clock_type::now() - start, 30ms);
}

TEST(wait_unless, polls_the_stop_condition_in_short_steps) {
  int polls = 0;
  auto start = clock_type::now();
  EXPECT_FALSE(common::wait_unless(600s, [&] { return ++polls == 3; }));
  EXPECT_EQ(polls, 3);
  EXPECT_LT(clock_type::now() - start, 10s);
  EXPECT_TRUE(common::wait_unless(0ms, [] { return true; }));
}
