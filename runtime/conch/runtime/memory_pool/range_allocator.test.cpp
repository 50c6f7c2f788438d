#include "conch/runtime/memory_pool/range_allocator.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace conch::runtime::memory_pool {
namespace {

TEST(range_allocator, hands_out_aligned_ranges_that_do_not_overlap) {
  range_allocator ranges{4096, 256};
  auto a = ranges.allocate(1);
  auto b = ranges.allocate(300);
  auto c = ranges.allocate(256);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a, 0u);
  EXPECT_EQ(*b, 256u);
  EXPECT_EQ(*c, 768u);
  EXPECT_EQ(ranges.used(), 1024u);
  EXPECT_EQ(ranges.largest_free(), 3072u);
}

TEST(range_allocator, refuses_what_does_not_fit_and_serves_again_once_freed) {
  range_allocator ranges{1024, 256};
  auto whole = ranges.allocate(1024);
  ASSERT_TRUE(whole);
  EXPECT_FALSE(ranges.allocate(1));
  ranges.release(*whole, 1024);
  EXPECT_EQ(ranges.used(), 0u);
  EXPECT_TRUE(ranges.allocate(1024));
  EXPECT_FALSE(ranges.allocate(1025));
}

TEST(range_allocator, merges_freed_neighbours_on_both_sides) {
  range_allocator ranges{1024, 256};
  auto a = ranges.allocate(256);
  auto b = ranges.allocate(256);
  auto c = ranges.allocate(256);
  auto d = ranges.allocate(256);
  ranges.release(*a, 256);
  ranges.release(*c, 256);
  EXPECT_EQ(ranges.free_ranges(), 2u);
  EXPECT_FALSE(ranges.allocate(512));
  ranges.release(*b, 256);  // joins a and c into one range of 768
  EXPECT_EQ(ranges.free_ranges(), 1u);
  EXPECT_EQ(ranges.largest_free(), 768u);
  ranges.release(*d, 256);
  EXPECT_EQ(ranges.largest_free(), 1024u);
}

TEST(range_allocator, picks_the_smallest_free_range_that_fits) {
  range_allocator ranges{4096, 256};
  std::vector<size_t> at;
  for (int i = 0; i < 16; ++i)
    at.push_back(*ranges.allocate(256));
  ranges.release(at[1], 256);        // a hole of 256
  ranges.release(at[4], 256);        // a hole of 768
  ranges.release(at[5], 256);
  ranges.release(at[6], 256);
  EXPECT_EQ(ranges.allocate(200), at[1]);
  EXPECT_EQ(ranges.allocate(512), at[4]);
}

TEST(range_allocator, a_zero_byte_range_still_has_an_offset_of_its_own) {
  range_allocator ranges{1024, 256};
  auto a = ranges.allocate(0);
  auto b = ranges.allocate(0);
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  ranges.release(*a, 0);
  ranges.release(*b, 0);
  EXPECT_EQ(ranges.used(), 0u);
}

TEST(range_allocator, sizes_near_the_largest_integer_are_refused) {
  range_allocator ranges{1024, 256};
  EXPECT_FALSE(ranges.allocate(std::numeric_limits<size_t>::max()));
  EXPECT_FALSE(ranges.allocate(std::numeric_limits<size_t>::max() - 100));
  EXPECT_EQ(ranges.used(), 0u);
}

TEST(range_allocator, an_empty_or_unaligned_block) {
  range_allocator empty{0};
  EXPECT_FALSE(empty.allocate(1));
  EXPECT_EQ(empty.largest_free(), 0u);
  range_allocator odd{1000, 256};  // rounded down to 768
  EXPECT_EQ(odd.capacity(), 768u);
  EXPECT_TRUE(odd.allocate(768));
  EXPECT_FALSE(odd.allocate(1));
}

// Random allocations and releases, checked against a byte map of who owns
// what: no two live ranges overlap, every range lies in the block, and when
// everything is given back the block is whole again.
TEST(range_allocator, random_use_keeps_ranges_disjoint_and_ends_whole) {
  constexpr size_t capacity = 1 << 16;
  constexpr size_t unit = 64;
  range_allocator ranges{capacity, unit};
  std::vector<int> owner(capacity / unit, -1);
  std::map<int, std::pair<size_t, size_t>> live;  // id -> (offset, size)
  std::mt19937 rng{7};
  int next_id = 0;
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      size_t size = rng() % 3000;
      auto at = ranges.allocate(size);
      if (!at) {
        EXPECT_LT(ranges.largest_free(), (size + unit - 1) / unit * unit + (size == 0) * unit);
        continue;
      }
      size_t length = size == 0 ? unit : (size + unit - 1) / unit * unit;
      ASSERT_EQ(*at % unit, 0u);
      ASSERT_LE(*at + length, capacity);
      for (size_t u = *at / unit; u < (*at + length) / unit; ++u) {
        ASSERT_EQ(owner[u], -1) << "overlap at unit " << u;
        owner[u] = next_id;
      }
      live[next_id++] = {*at, size};
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      auto [at, size] = it->second;
      size_t length = size == 0 ? unit : (size + unit - 1) / unit * unit;
      for (size_t u = at / unit; u < (at + length) / unit; ++u)
        owner[u] = -1;
      ranges.release(at, size);
      live.erase(it);
    }
  }
  for (auto& [id, range] : live)
    ranges.release(range.first, range.second);
  EXPECT_EQ(ranges.used(), 0u);
  EXPECT_EQ(ranges.free_ranges(), 1u);
  EXPECT_EQ(ranges.largest_free(), capacity);
}

} // namespace
} // namespace conch::runtime::memory_pool
