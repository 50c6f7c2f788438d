#include "conch/actors/scheduling/direct_lane.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace conch::actors {
namespace {

direct_lane::binding bound_to(int tag) {
  direct_lane::binding b;
  b.context.name = "i" + std::to_string(tag);
  b.context.index = static_cast<size_t>(tag);
  return b;
}

// A lane whose scheduler has parked every instance and wants none back.
std::unique_ptr<direct_lane> open_lane(size_t slots) {
  auto lane = std::make_unique<direct_lane>(slots);
  for (size_t i = 0; i < slots; ++i)
    lane->park(i, bound_to(static_cast<int>(i)));
  lane->want(false);
  return lane;
}

TEST(direct_lane, lends_nothing_until_the_scheduler_parks_and_stops_wanting) {
  direct_lane lane{1};
  EXPECT_FALSE(lane.try_lease());
  lane.park(0, bound_to(0));
  EXPECT_FALSE(lane.try_lease()) << "a new lane starts wanted";
  lane.want(false);
  auto index = lane.try_lease();
  ASSERT_TRUE(index);
  EXPECT_EQ(*index, 0u);
  EXPECT_EQ(lane.bound(0).context.name, "i0");
}

TEST(direct_lane, a_leased_instance_is_leased_once_and_parked_again_on_release) {
  auto lane = open_lane(1);
  auto first = lane->try_lease();
  ASSERT_TRUE(first);
  EXPECT_FALSE(lane->try_lease()) << "one instance, one lessee";
  EXPECT_FALSE(lane->release(*first, false)) << "nobody wants it: it stays parked";
  EXPECT_TRUE(lane->try_lease());
}

TEST(direct_lane, leases_spread_over_the_instances) {
  auto lane = open_lane(3);
  std::vector<size_t> got;
  for (int i = 0; i < 3; ++i) {
    auto index = lane->try_lease();
    ASSERT_TRUE(index);
    got.push_back(*index);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<size_t>{0, 1, 2}));
  EXPECT_FALSE(lane->try_lease());
}

TEST(direct_lane, a_wanted_lane_lends_nothing_and_gives_parked_instances_back) {
  auto lane = open_lane(2);
  lane->want(true);
  EXPECT_FALSE(lane->try_lease());
  EXPECT_TRUE(lane->reclaim(0));
  EXPECT_FALSE(lane->reclaim(0)) << "already owned";
  EXPECT_TRUE(lane->reclaim(1));
}

TEST(direct_lane, a_recalled_lease_comes_back_to_the_scheduler_on_release) {
  auto lane = open_lane(1);
  auto index = lane->try_lease();
  ASSERT_TRUE(index);
  lane->want(true);
  EXPECT_FALSE(lane->reclaim(*index)) << "leased: the lessee has it";
  EXPECT_TRUE(lane->release(*index, false)) << "the lessee must send it back";
  EXPECT_FALSE(lane->reclaim(*index)) << "it is the scheduler's already";
  lane->want(false);
  EXPECT_FALSE(lane->try_lease()) << "owned, not parked, until parked again";
  lane->park(*index, bound_to(7));
  EXPECT_TRUE(lane->try_lease());
}

TEST(direct_lane, a_crashed_instance_always_goes_back_to_the_scheduler) {
  auto lane = open_lane(1);
  auto index = lane->try_lease();
  ASSERT_TRUE(index);
  EXPECT_TRUE(lane->release(*index, true));
  EXPECT_FALSE(lane->try_lease());
  EXPECT_FALSE(lane->reclaim(*index));
}

TEST(direct_lane, unbind_forgets_what_an_owned_instance_ran_with) {
  direct_lane lane{1};
  auto b = bound_to(0);
  auto keep = std::make_shared<int>(0);
  b.model = std::shared_ptr<runtime::backends::backend_model>(keep, nullptr);
  lane.park(0, std::move(b));
  EXPECT_EQ(keep.use_count(), 2);
  ASSERT_TRUE(lane.reclaim(0));
  lane.unbind(0);
  EXPECT_EQ(keep.use_count(), 1);
}

// Lessees on several threads race a scheduler that recalls and parks the
// instances again and again. No instance is ever held by two parties at
// once, and every instance ends up back with the scheduler.
TEST(direct_lane, lessees_racing_recalls_never_share_an_instance_nor_lose_one) {
  constexpr size_t slots = 2;
  direct_lane lane{slots};
  std::vector<std::atomic<int>> holders(slots);
  std::atomic<int> returned_by_lessees{0};
  std::atomic<bool> stop{false};
  std::atomic<int> leases{0};
  std::atomic<int> overlaps{0};
  std::vector<std::thread> lessees;
  for (int t = 0; t < 3; ++t)
    lessees.emplace_back([&] {
      while (!stop.load()) {
        auto index = lane.try_lease();
        if (!index)
          continue;
        if (holders[*index].fetch_add(1) != 0)
          ++overlaps;
        ++leases;
        holders[*index].fetch_sub(1);
        if (lane.release(*index, false))
          returned_by_lessees.fetch_add(1);
      }
    });
  // The scheduler: owns every instance at first, parks them, recalls them.
  std::vector<bool> owned(slots, true);
  int rounds = 0;
  for (; rounds < 300 || leases.load() < 200; ++rounds) {
    for (size_t i = 0; i < slots; ++i)
      if (owned[i]) {
        if (holders[i].fetch_add(1) != 0)
          ++overlaps;
        holders[i].fetch_sub(1);
        lane.park(i, bound_to(static_cast<int>(i)));
        owned[i] = false;
      }
    lane.want(false);
    std::this_thread::yield();
    lane.want(true);
    for (size_t i = 0; i < slots; ++i)
      if (lane.reclaim(i))
        owned[i] = true;
    // What the lessees handed back counts as owned once they say so; wait
    // for the leased ones, as a draining scheduler waits for credits.
    int expected_back = 0;
    for (size_t i = 0; i < slots; ++i)
      expected_back += owned[i] ? 0 : 1;
    while (returned_by_lessees.load() < expected_back)
      std::this_thread::yield();
    returned_by_lessees.fetch_sub(expected_back);
    for (size_t i = 0; i < slots; ++i)
      owned[i] = true;
    if (rounds > 100000)
      break;
  }
  stop = true;
  for (auto& t : lessees)
    t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(returned_by_lessees.load(), 0) << "an instance came back twice";
  EXPECT_GT(leases.load(), 0);
  for (size_t i = 0; i < slots; ++i)
    EXPECT_FALSE(lane.reclaim(i)) << "slot " << i << " is not with the scheduler";
}

} // namespace
} // namespace conch::actors
