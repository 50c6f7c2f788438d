#include "conch/runtime/batching/batcher_config.hpp"

#include <gtest/gtest.h>

using namespace conch::runtime::batching;

TEST(batcher_config, a_model_without_dynamic_batching_is_not_dynamic) {
  inference::ModelConfig config;
  config.set_max_batch_size(8);
  const batcher_config c = batcher_config_from(config);
  EXPECT_FALSE(c.dynamic);
  EXPECT_EQ(c.max_batch_size, 8);
  EXPECT_TRUE(c.preferred_batch_sizes.empty());
  EXPECT_EQ(c.max_queue_delay_us, 0u);
  EXPECT_EQ(c.priority_levels, 0u);
  EXPECT_TRUE(c.level_policies.empty());
}

TEST(batcher_config, copies_the_dynamic_batching_section) {
  inference::ModelConfig config;
  config.set_max_batch_size(16);
  auto* db = config.mutable_dynamic_batching();
  db->add_preferred_batch_size(4);
  db->add_preferred_batch_size(8);
  db->set_max_queue_delay_microseconds(250);
  db->set_preserve_ordering(true);
  db->set_priority_levels(3);
  db->set_default_priority_level(2);
  db->mutable_default_queue_policy()->set_max_queue_size(10);
  inference::ModelQueuePolicy level1;
  level1.set_timeout_action(inference::ModelQueuePolicy::DELAY);
  level1.set_default_timeout_microseconds(100);
  (*db->mutable_priority_queue_policy())[1] = level1;

  const batcher_config c = batcher_config_from(config);
  EXPECT_TRUE(c.dynamic);
  EXPECT_EQ(c.max_batch_size, 16);
  EXPECT_EQ(c.preferred_batch_sizes, (std::vector<int32_t>{4, 8}));
  EXPECT_EQ(c.max_queue_delay_us, 250u);
  EXPECT_TRUE(c.preserve_ordering);
  EXPECT_EQ(c.priority_levels, 3u);
  EXPECT_EQ(c.default_priority_level, 2u);
  EXPECT_EQ(c.default_policy.max_queue_size, 10u);
  ASSERT_EQ(c.level_policies.size(), 1u);
  EXPECT_EQ(c.level_policies.at(1).action, timeout_action::delay);
  EXPECT_EQ(c.level_policies.at(1).default_timeout_us, 100u);
}

TEST(batcher_config, an_empty_dynamic_batching_section_still_enables_batching) {
  inference::ModelConfig config;
  config.set_max_batch_size(4);
  config.mutable_dynamic_batching();
  EXPECT_TRUE(batcher_config_from(config).dynamic);
}
