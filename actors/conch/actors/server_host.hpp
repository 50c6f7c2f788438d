#pragma once

#include <cstddef>
#include <memory>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <chrono>

#include "conch/actors/server.hpp"

namespace conch::actors {

/// Options of the actor system a server_host creates.
struct host_options {
  /// CAF scheduler threads (CAF would otherwise use at least 4). The default,
  /// half the hardware threads, leaves the other half to the threads that
  /// call Conch (Python, libuv loops, gRPC) and to blocking backends.
  size_t scheduler_threads = default_scheduler_threads();
  /// Messages an actor handles before it yields its thread.
  size_t max_throughput = 100;
  /// How often an idle scheduler thread polls its queue (a few hundred
  /// microseconds in all) before it sleeps until an enqueue wakes it. Work
  /// that arrives in the meantime starts without a wake-up.
  size_t poll_attempts = 5000;
  /// How long a sleeping scheduler thread waits before it looks for work to
  /// steal from the others. An enqueue wakes it at once, so this costs no
  /// latency; CAF's 10 ms made an idle server wake each thread 100 times a
  /// second.
  std::chrono::milliseconds steal_wait{1000};

  /// max(1, hardware threads / 2).
  static size_t default_scheduler_threads() noexcept;
};

/// A server together with an actor system of its own, for programs that do
/// not run CAF themselves. Stops the server, then the actor system, when
/// destroyed.
class server_host {
 public:
  /// Creates the actor system and starts a server in it.
  static runtime::result<std::unique_ptr<server_host>> start(server_options options,
                                                             host_options host = {});

  ~server_host();

  conch::actors::server& server() noexcept { return *server_; }
  caf::actor_system& system() noexcept { return *system_; }

 private:
  server_host() = default;
  std::unique_ptr<caf::actor_system_config> config_;
  std::unique_ptr<caf::actor_system> system_;
  std::unique_ptr<conch::actors::server> server_;
};

/// Applies the scheduler settings Conch wants to an application's config:
/// an explicit worker count, a bounded max-throughput, and idle workers that
/// poll for a while and then sleep until woken, never in between (CAF's
/// default middle phase sleeps 50 µs at a time, unwoken, which adds that
/// much latency to every request of a client that is not saturating).
void configure_actor_system(caf::actor_system_config& cfg, const host_options& host = {});

} // namespace conch::actors
