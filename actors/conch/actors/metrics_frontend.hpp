#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include <caf/actor.hpp>

#include "conch/actors/metrics_options.hpp"
#include "conch/actors/server.hpp"

namespace conch::actors {

class metrics_transport;

/// The Prometheus metrics frontend of a server: GET /metrics (and
/// /metrics/) on its own port answers the text exposition of the server's
/// metric families, read fresh at every scrape. start() adds it to the
/// server's supervision tree (a frontend supervisor owning the loop
/// threads), so the server stops it first when it stops; stop() stops it
/// alone. It may be started again after a stop. Keeps its server alive.
/// start() and stop() block until done, so they must not be called from a
/// thread of the actor system's scheduler. Thread-safe.
class metrics_frontend {
 public:
  metrics_frontend(server& srv, metrics_options options);
  metrics_frontend(const metrics_frontend&) = delete;
  metrics_frontend& operator=(const metrics_frontend&) = delete;

  /// Stops the frontend if it runs.
  ~metrics_frontend();

  /// Binds the port and starts serving. ALREADY_EXISTS when running;
  /// UNAVAILABLE when the port is in use or the server stopped;
  /// INVALID_ARG for bad options.
  runtime::status start();

  /// Stops serving: new connections are refused, scrapes in flight are
  /// answered, then connections close. UNAVAILABLE when not running; a
  /// no-op when the server stopped it already.
  runtime::status stop();

  /// The port the latest start bound (the picked one for port 0); 0 before.
  uint16_t port() const;

  const metrics_options& options() const noexcept { return options_; }

 private:
  server srv_;
  metrics_options options_;
  mutable std::mutex mutex_;
  caf::actor supervisor_;                         // guarded by mutex_
  std::shared_ptr<metrics_transport> transport_;  // guarded by mutex_
};

} // namespace conch::actors

namespace conch {
using actors::metrics_frontend;
} // namespace conch
