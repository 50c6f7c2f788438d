#include "conch/actors/adapters/adapter_slots.hpp"

#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "conch/actors/test/deterministic_fixture.hpp"

namespace conch::actors {
namespace {

using slots_test = test::deterministic_fixture;

// An adapter that takes whatever it is sent and does nothing with it.
adapter_actor::behavior_type idle_adapter() {
  return {
    [](table_atom, model_table_ptr&) { return caf::ok_atom_v; },
    [](runtime::job_ptr&) {},
  };
}

TEST_F(slots_test, nothing_to_pick_before_publication) {
  adapter_slots slots{2, 1};
  EXPECT_EQ(slots.pick(), nullptr);
}

TEST_F(slots_test, picks_cover_every_slot_and_follow_republication) {
  auto behavior = idle_adapter;
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

TEST_F(slots_test, a_key_always_picks_the_same_adapter) {
  auto behavior = idle_adapter;
  adapter_slots slots{3, 0};
  std::vector<adapter_actor> adapters;
  for (size_t i = 0; i < 3; ++i) {
    adapters.push_back(sys.spawn(behavior));
    ASSERT_TRUE(slots.publish(i, adapters.back()));
  }
  std::set<caf::actor_addr> used;
  for (size_t key : {0u, 1u, 2u, 7u, 12345u}) {
    const auto* first = slots.pick_for(key);
    ASSERT_NE(first, nullptr);
    used.insert(first->address());
    for (int i = 0; i < 10; ++i)
      EXPECT_EQ(slots.pick_for(key)->address(), first->address());
  }
  EXPECT_EQ(used.size(), 3u) << "keys spread over the adapters";
  for (auto& a : adapters)
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  run();
}

} // namespace
} // namespace conch::actors
