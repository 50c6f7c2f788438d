#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>

#include <caf/actor_system.hpp>

namespace conch::tests {

/// Destroys an actor system on this thread (CAF 0.17 wants the thread that
/// used it through scoped actors), ending the process with a failure when that
/// does not return within `timeout`, which would otherwise hang the test.
inline void destroy_within(std::unique_ptr<caf::actor_system> sys, std::chrono::seconds timeout) {
  std::promise<void> done;
  std::thread watchdog{[finished = done.get_future(), timeout]() mutable {
    if (finished.wait_for(timeout) == std::future_status::ready)
      return;
    std::fprintf(stderr, "FAILURE: the actor system did not shut down within %lld s\n",
                 static_cast<long long>(timeout.count()));
    std::fflush(stderr);
    std::_Exit(1);
  }};
  sys.reset();
  done.set_value();
  watchdog.join();
}

} // namespace conch::tests
