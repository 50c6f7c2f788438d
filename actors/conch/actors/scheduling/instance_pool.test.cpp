#include "conch/actors/scheduling/instance_pool.hpp"

#include <gtest/gtest.h>

using conch::actors::instance_pool;
using conch::actors::instance_slot;

TEST(instance_pool, idle_instances_come_most_recently_idle_last) {
  instance_pool pool;
  pool.resize(3);
  pool.make_idle(2);
  pool.make_idle(0);
  pool.make_idle(1);
  EXPECT_EQ(pool.idle(), (std::vector<size_t>{2, 0, 1}));
  pool.take_idle_at(1);
  EXPECT_EQ(pool.idle(), (std::vector<size_t>{2, 1}));
}

TEST(instance_pool, an_ended_instance_is_neither_alive_nor_idle) {
  instance_pool pool;
  pool.resize(2);
  pool.started(0, conch::actors::model_instance_actor{});
  pool.started(1, conch::actors::model_instance_actor{});
  EXPECT_EQ(pool.alive(), 2u);
  pool.make_idle(0);
  pool.make_idle(1);
  pool.ended(0);
  EXPECT_EQ(pool.alive(), 1u);
  EXPECT_EQ(pool.idle(), (std::vector<size_t>{1}));
  EXPECT_FALSE(pool[0].ready);
}

TEST(instance_pool, lending_takes_only_what_the_lane_accepts_and_counts_it) {
  instance_pool pool;
  pool.resize(3);
  for (size_t i = 0; i < 3; ++i)
    pool.make_idle(i);
  // The lane takes every instance but the one in slot 1.
  EXPECT_TRUE(pool.lend_idle([](size_t index, const instance_slot&) { return index != 1; }));
  EXPECT_EQ(pool.lent(), 2u);
  EXPECT_EQ(pool.idle(), (std::vector<size_t>{1}));
  EXPECT_TRUE(pool[0].lent);
  EXPECT_FALSE(pool[1].lent);
  EXPECT_FALSE(pool.lend_idle([](size_t, const instance_slot&) { return false; }));
}

TEST(instance_pool, a_recall_gets_back_the_parked_ones_and_a_credit_the_leased_one) {
  instance_pool pool;
  pool.resize(2);
  pool.make_idle(0);
  pool.make_idle(1);
  pool.lend_idle([](size_t, const instance_slot&) { return true; });
  // Slot 0 is parked (the lane gives it back), slot 1 is leased (it does not).
  pool.reclaim_lent([](size_t index) { return index == 0; });
  EXPECT_EQ(pool.lent(), 1u);
  EXPECT_EQ(pool.idle(), (std::vector<size_t>{0}));
  EXPECT_TRUE(pool[1].lent);
  // Its lessee's credit brings it back.
  pool.returned(1);
  EXPECT_EQ(pool.lent(), 0u);
  EXPECT_FALSE(pool[1].lent);
}

TEST(instance_pool, clearing_forgets_everything) {
  instance_pool pool;
  pool.resize(1);
  pool.started(0, conch::actors::model_instance_actor{});
  pool.make_idle(0);
  pool.clear();
  EXPECT_TRUE(pool.empty());
  EXPECT_EQ(pool.alive(), 0u);
  EXPECT_TRUE(pool.idle().empty());
  EXPECT_EQ(pool.find(caf::actor_addr{}), 0u);
}
