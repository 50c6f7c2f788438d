#include "conch/runtime/batching/queue_policy.hpp"

#include <gtest/gtest.h>

using namespace conch::runtime::batching;

TEST(queue_policy, defaults_reject_without_timeout_or_limit) {
  queue_policy p;
  EXPECT_EQ(p.action, timeout_action::reject);
  EXPECT_EQ(p.default_timeout_us, 0u);
  EXPECT_FALSE(p.allow_timeout_override);
  EXPECT_EQ(p.max_queue_size, 0u);
  EXPECT_EQ(queue_policy_from(inference::ModelQueuePolicy{}), p);
}

TEST(queue_policy, reads_every_field_of_the_message) {
  inference::ModelQueuePolicy msg;
  msg.set_timeout_action(inference::ModelQueuePolicy::DELAY);
  msg.set_default_timeout_microseconds(1500);
  msg.set_allow_timeout_override(true);
  msg.set_max_queue_size(7);
  const queue_policy p = queue_policy_from(msg);
  EXPECT_EQ(p.action, timeout_action::delay);
  EXPECT_EQ(p.default_timeout_us, 1500u);
  EXPECT_TRUE(p.allow_timeout_override);
  EXPECT_EQ(p.max_queue_size, 7u);
}

TEST(queue_policy, names_actions_as_the_configuration_does) {
  EXPECT_EQ(to_string(timeout_action::reject), "REJECT");
  EXPECT_EQ(to_string(timeout_action::delay), "DELAY");
}
