#include "conch/runtime/statistics/batch_table.hpp"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

using namespace conch::runtime::statistics;

TEST(batch_table, sizes_within_capacity_and_overflow_are_kept_sorted) {
  batch_table table{4};
  EXPECT_TRUE(table.record(300, 1, 2, 3));
  EXPECT_TRUE(table.record(2, 1, 2, 3));
  EXPECT_TRUE(table.record(9, 1, 2, 3));
  EXPECT_TRUE(table.record(2, 10, 20, 30));
  auto s = table.snapshot();
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].batch_size, 2u);
  EXPECT_EQ(s[0].compute_input, (duration_stat{2, 11}));
  EXPECT_EQ(s[0].compute_output, (duration_stat{2, 33}));
  EXPECT_EQ(s[1].batch_size, 9u);
  EXPECT_EQ(s[2].batch_size, 300u);
}

TEST(batch_table, size_zero_and_sizes_past_the_overflow_are_left_out) {
  batch_table table{1};
  EXPECT_FALSE(table.record(0, 1, 1, 1));
  for (uint64_t size = 2; size < 2 + batch_table::overflow_slots; ++size)
    EXPECT_TRUE(table.record(size, 1, 1, 1));
  EXPECT_FALSE(table.record(1000, 1, 1, 1));
  EXPECT_TRUE(table.record(2, 1, 1, 1));
  EXPECT_EQ(table.snapshot().size(), batch_table::overflow_slots);
}

TEST(batch_table, threads_racing_for_overflow_slots_share_one_slot_per_size) {
  batch_table table{1};
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i)
    workers.emplace_back([&table] {
      for (int j = 0; j < 1000; ++j)
        for (uint64_t size = 100; size < 108; ++size)
          table.record(size, 1, 1, 1);
    });
  for (auto& w : workers)
    w.join();
  auto s = table.snapshot();
  ASSERT_EQ(s.size(), 8u);
  for (const auto& b : s)
    EXPECT_EQ(b.compute_infer, (duration_stat{4000, 4000})) << b.batch_size;
}
