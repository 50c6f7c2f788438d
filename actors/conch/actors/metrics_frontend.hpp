#pragma once

#include "conch/actors/listening_frontend.hpp"
#include "conch/actors/metrics_options.hpp"
#include "conch/actors/server.hpp"

namespace conch::actors {

/// The Prometheus metrics frontend of a server: GET /metrics (and
/// /metrics/) on its own port answers the text exposition of the server's
/// metric families, read fresh at every scrape. start() adds it to the
/// server's supervision tree (a frontend supervisor owning the loop
/// threads), so the server stops it first when it stops; stop() stops it
/// alone. It may be started again after a stop. Keeps its server alive.
/// start() and stop() block until done, so they must not be called from a
/// thread of the actor system's scheduler. Thread-safe.
class metrics_frontend final : public listening_frontend {
 public:
  metrics_frontend(server& srv, metrics_options options);

  /// Stops the frontend if it runs, while the options its restarts read
  /// still exist.
  ~metrics_frontend() { shutdown(); }

  /// Binds the port and starts serving. ALREADY_EXISTS when running;
  /// UNAVAILABLE when the port is in use or the server stopped;
  /// INVALID_ARG for bad options.
  runtime::status start();

  const metrics_options& options() const noexcept { return options_; }

 private:
  metrics_options options_;
  std::shared_ptr<runtime::statistics::byte_budget> input_;  // across restarts
};

} // namespace conch::actors

namespace conch {
using actors::metrics_frontend;
} // namespace conch
