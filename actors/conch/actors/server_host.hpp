#pragma once

#include <cstddef>
#include <memory>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "conch/actors/server.hpp"

namespace conch::actors {

/// Options of the actor system a server_host creates.
struct host_options {
  /// CAF scheduler threads (CAF would otherwise use at least 4).
  size_t scheduler_threads = 2;
  /// Messages an actor handles before it yields its thread.
  size_t max_throughput = 100;
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
/// an explicit worker count and a bounded max-throughput.
void configure_actor_system(caf::actor_system_config& cfg, const host_options& host = {});

} // namespace conch::actors
