#include "conch/runtime/spin.hpp"

#include <chrono>

#include <gtest/gtest.h>

namespace conch::runtime {
namespace {

using std::chrono::microseconds;

TEST(gap_mean, follows_the_recent_gaps) {
  gap_mean gaps{microseconds{400}};
  EXPECT_EQ(gaps.value(), microseconds{0});
  for (int i = 0; i < 64; ++i)
    gaps.add(microseconds{30});
  EXPECT_NEAR(double(gaps.value().count()), 30'000.0, 100.0);
  for (int i = 0; i < 64; ++i)
    gaps.add(microseconds{95});
  EXPECT_NEAR(double(gaps.value().count()), 95'000.0, 100.0);
}

TEST(gap_mean, one_long_pause_is_soon_outweighed) {
  gap_mean gaps{microseconds{400}};
  for (int i = 0; i < 64; ++i)
    gaps.add(microseconds{30});
  gaps.add(std::chrono::minutes{1});  // counts as the cap, 400 us
  EXPECT_LE(gaps.value(), microseconds{80});
  int after = 0;
  while (gaps.value() > microseconds{50}) {
    gaps.add(microseconds{30});
    ++after;
  }
  EXPECT_LE(after, 10);
}

TEST(gap_mean, a_gap_that_ends_before_it_starts_counts_as_none) {
  gap_mean gaps{microseconds{400}};
  gaps.add(microseconds{80});
  auto before = gaps.value();
  gaps.add(microseconds{-5});
  EXPECT_LT(gaps.value(), before);
  EXPECT_GE(gaps.value(), microseconds{0});
}

} // namespace
} // namespace conch::runtime
