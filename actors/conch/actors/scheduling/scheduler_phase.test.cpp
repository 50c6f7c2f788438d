#include "conch/actors/scheduling/scheduler_phase.hpp"

#include <gtest/gtest.h>

namespace conch::actors {
namespace {

using load_step = scheduler_phase::load_step;
using stop_step = scheduler_phase::stop_step;

TEST(scheduler_phase, serves_only_once_loaded_and_until_a_stop_begins) {
  scheduler_phase phase;
  EXPECT_FALSE(phase.serving());
  ASSERT_TRUE(phase.begin_load());
  EXPECT_TRUE(phase.loading());
  EXPECT_FALSE(phase.serving());
  phase.load_succeeded();
  EXPECT_FALSE(phase.loading());
  EXPECT_TRUE(phase.serving());
  phase.drain();
  EXPECT_FALSE(phase.serving());
  EXPECT_TRUE(phase.stopping());
  EXPECT_FALSE(phase.aborted());
  EXPECT_EQ(phase.load(), load_step::ready);
}

TEST(scheduler_phase, loads_once_even_after_a_failed_load) {
  scheduler_phase phase;
  ASSERT_TRUE(phase.begin_load());
  EXPECT_FALSE(phase.begin_load());
  phase.load_failed();
  EXPECT_FALSE(phase.loading());
  EXPECT_FALSE(phase.serving());
  EXPECT_FALSE(phase.begin_load());
  EXPECT_EQ(phase.load(), load_step::failed);
}

TEST(scheduler_phase, a_drain_begun_while_loading_never_serves) {
  scheduler_phase phase;
  ASSERT_TRUE(phase.begin_load());
  phase.drain();
  EXPECT_TRUE(phase.loading());
  EXPECT_TRUE(phase.stopping());
  phase.load_succeeded();
  EXPECT_FALSE(phase.serving());
  EXPECT_EQ(phase.stop(), stop_step::draining);
}

TEST(scheduler_phase, an_abort_outranks_a_drain) {
  scheduler_phase phase;
  ASSERT_TRUE(phase.begin_load());
  phase.load_succeeded();
  phase.abort();
  phase.drain();
  EXPECT_TRUE(phase.aborted());
  EXPECT_TRUE(phase.stopping());
  EXPECT_EQ(phase.stop(), stop_step::aborted);
}

} // namespace
} // namespace conch::actors
