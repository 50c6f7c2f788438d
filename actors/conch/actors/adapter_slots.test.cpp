#include "conch/actors/adapter_slots.hpp"

#include <set>

#include <gtest/gtest.h>

#include "conch/actors/test/deterministic_fixture.hpp"

namespace conch::actors {
namespace {

using slots_test = test::deterministic_fixture;

TEST_F(slots_test, nothing_to_pick_before_publication) {
  adapter_slots slots{2, 1};
  EXPECT_EQ(slots.pick(), nullptr);
}

TEST_F(slots_test, picks_cover_every_slot_and_follow_republication) {
  auto behavior = [](caf::event_based_actor*) -> caf::behavior { return {[](int) {}}; };
  adapter_slots slots{2, 1};
  auto a = sys.spawn(behavior);
  auto b = sys.spawn(behavior);
  auto c = sys.spawn(behavior);
  ASSERT_TRUE(slots.publish(0, a));
  ASSERT_TRUE(slots.publish(1, b));
  std::set<caf::actor_addr> seen;
  for (int i = 0; i < 4; ++i)
    seen.insert(slots.pick()->address());
  EXPECT_EQ(seen, (std::set<caf::actor_addr>{a.address(), b.address()}));
  ASSERT_TRUE(slots.publish(0, c)); // a restart replaces slot 0
  seen.clear();
  for (int i = 0; i < 4; ++i)
    seen.insert(slots.pick()->address());
  EXPECT_EQ(seen, (std::set<caf::actor_addr>{c.address(), b.address()}));
  EXPECT_FALSE(slots.publish(1, a)) << "the restart budget is spent";
  for (auto& x : {a, b, c})
    caf::anon_send_exit(x, caf::exit_reason::user_shutdown);
  run();
}

} // namespace
} // namespace conch::actors
