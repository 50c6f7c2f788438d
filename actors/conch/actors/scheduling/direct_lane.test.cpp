#include "conch/actors/scheduling/direct_lane.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
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

// -- waiting jobs -------------------------------------------------------------

direct_lane::binding with_worker(int tag) {
  auto b = bound_to(tag);
  b.worker = std::make_shared<worker_instance>(std::weak_ptr<runtime::backends::backend_instance>{},
                                               std::weak_ptr<services::worker_thread>{}, b.context);
  return b;
}

runtime::job_ptr a_job(const std::string& id) {
  runtime::inference_request r;
  r.id = id;
  return std::make_shared<runtime::inference_job>(std::move(r),
                                                  [](runtime::inference_response&&) {});
}

std::unique_ptr<direct_lane> open_worker_lane(size_t slots) {
  auto lane = std::make_unique<direct_lane>(slots);
  for (size_t i = 0; i < slots; ++i)
    lane->park(i, with_worker(static_cast<int>(i)));
  lane->want(false);
  return lane;
}

TEST(direct_lane, only_a_lane_of_instances_with_workers_keeps_waiting_jobs) {
  auto inline_lane = open_lane(1);
  EXPECT_FALSE(inline_lane->keeps_waiting());
  EXPECT_FALSE(inline_lane->wait(a_job("x"))) << "a lease there lasts microseconds";
  auto lane = open_worker_lane(1);
  EXPECT_TRUE(lane->keeps_waiting());
  EXPECT_TRUE(lane->wait(a_job("x")));
  EXPECT_TRUE(lane->has_waiting());
}

TEST(direct_lane, waiting_jobs_come_out_oldest_first) {
  auto lane = open_worker_lane(1);
  for (auto id : {"a", "b", "c"})
    ASSERT_TRUE(lane->wait(a_job(id)));
  for (auto id : {"a", "b", "c"}) {
    auto job = lane->next_waiting();
    ASSERT_TRUE(job);
    EXPECT_EQ(job->request().id, id);
  }
  EXPECT_FALSE(lane->has_waiting());
  EXPECT_FALSE(lane->next_waiting());
}

TEST(direct_lane, the_scheduler_takes_the_waiting_jobs_and_none_waits_until_it_lends_again) {
  auto lane = open_worker_lane(1);
  ASSERT_TRUE(lane->wait(a_job("a")));
  ASSERT_TRUE(lane->wait(a_job("b")));
  lane->want(true);
  auto taken = lane->close_waiting();
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0]->request().id, "a");
  EXPECT_EQ(taken[1]->request().id, "b");
  EXPECT_FALSE(lane->has_waiting());
  EXPECT_FALSE(lane->wait(a_job("c"))) << "wanted: the job takes the actor path";
  lane->want(false);
  EXPECT_TRUE(lane->wait(a_job("d")));
}

TEST(direct_lane, a_new_lane_takes_no_waiting_job_before_it_lends) {
  direct_lane lane{1};
  lane.park(0, with_worker(0));
  EXPECT_FALSE(lane.wait(a_job("a"))) << "a new lane starts wanted";
}

TEST(direct_lane, waiting_is_bounded) {
  auto lane = open_worker_lane(1);
  for (size_t i = 0; i < direct_lane::waiting_limit; ++i)
    ASSERT_TRUE(lane->wait(a_job(std::to_string(i))));
  EXPECT_FALSE(lane->wait(a_job("one more")));
  EXPECT_TRUE(lane->next_waiting());
  EXPECT_TRUE(lane->wait(a_job("room again")));
}

struct counting_listener final : runtime::cancel_listener {
  std::atomic<int> told{0};
  void on_cancel() noexcept override { ++told; }
};

TEST(direct_lane, a_cancelled_waiting_job_tells_the_lanes_listener_and_is_taken_out) {
  auto lane = open_worker_lane(1);
  auto listener = std::make_shared<counting_listener>();
  lane->set_cancel_listener(listener);
  auto a = a_job("a"), b = a_job("b"), c = a_job("c");
  for (const auto& job : {a, b, c})
    ASSERT_TRUE(lane->wait(job));
  b->cancel();
  EXPECT_EQ(listener->told.load(), 1);
  auto taken = lane->take_cancelled();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], b);
  EXPECT_EQ(lane->next_waiting(), a);
  EXPECT_EQ(lane->next_waiting(), c);
  EXPECT_FALSE(lane->has_waiting());
  auto late = a_job("late");
  late->cancel();
  ASSERT_TRUE(lane->wait(late));
  EXPECT_EQ(listener->told.load(), 2) << "cancelled before it waited: told at once";
}

// The race the lane is built around: a submitter leaves a job and then tries
// to lease, while the lessee ends its lease and then looks for a waiting job.
// Whatever the interleaving, one of them finds the other: no job is left
// waiting beside a parked instance.
TEST(direct_lane, a_waiting_job_is_never_left_beside_a_parked_instance) {
  for (int round = 0; round < 2000; ++round) {
    auto lane = open_worker_lane(1);
    auto index = lane->try_lease(1);
    ASSERT_TRUE(index);
    std::atomic<int> served{0};
    auto serve = [&] {
      while (lane->has_waiting()) {
        auto i = lane->try_lease(1);
        if (!i)
          return;
        if (lane->next_waiting())
          ++served;
        lane->release(*i, false);
      }
    };
    std::thread submitter{[&] {
      ASSERT_TRUE(lane->wait(a_job("a")));
      serve();
    }};
    std::thread lessee{[&] {
      lane->release(*index, false);
      serve();
    }};
    submitter.join();
    lessee.join();
    EXPECT_EQ(served.load(), 1) << "round " << round;
    EXPECT_FALSE(lane->has_waiting());
  }
}

} // namespace
} // namespace conch::actors
