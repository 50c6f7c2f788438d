#pragma once

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <gtest/gtest.h>

namespace conch::actors::test {

/// An actor system on CAF's deterministic test scheduler: nothing runs until
/// the test calls run(), and time moves only with advance().
struct deterministic_fixture : ::testing::Test {
  struct config : caf::actor_system_config {
    config() {
      set("scheduler.policy", caf::atom("testing"));
      set("logger.console", caf::atom("none"));
    }
  };

  config cfg;
  caf::actor_system sys{cfg};
  caf::scheduler::test_coordinator& sched
    = dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());

  /// Runs every actor until no message is left.
  void run() { sched.run(); }

  /// Moves the clock forward, fires the timeouts that became due, and runs.
  void advance(caf::timespan d) {
    sched.advance_time(d);
    sched.run();
  }
};

} // namespace conch::actors::test
