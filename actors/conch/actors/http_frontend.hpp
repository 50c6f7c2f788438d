#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include <caf/actor.hpp>

#include "conch/actors/http_options.hpp"
#include "conch/actors/server.hpp"

namespace conch::actors {

class http_transport;

/// The KServe v2 HTTP frontend of a server. start() adds it to the server's
/// supervision tree (a frontend supervisor owning the loop threads), so the
/// server stops it first when it stops; stop() stops it alone, letting
/// requests in flight finish. It may be started again after a stop. Keeps
/// its server alive. start() and stop() block until done, so they must not
/// be called from a thread of the actor system's scheduler. Thread-safe.
class http_frontend {
 public:
  http_frontend(server& srv, http_options options);
  http_frontend(const http_frontend&) = delete;
  http_frontend& operator=(const http_frontend&) = delete;

  /// Stops the frontend if it runs.
  ~http_frontend();

  /// Binds the port and starts serving. ALREADY_EXISTS when running;
  /// UNAVAILABLE when the port is in use or the server stopped;
  /// INVALID_ARG for bad options (restricted_features included).
  runtime::status start();

  /// Stops serving: new connections are refused, requests in flight are
  /// answered, then connections close. UNAVAILABLE when not running; a
  /// no-op when the server stopped it already.
  runtime::status stop();

  /// The port the latest start bound (the picked one for port 0); 0 before.
  uint16_t port() const;

  const http_options& options() const noexcept { return options_; }

 private:
  server srv_;
  http_options options_;
  mutable std::mutex mutex_;
  caf::actor supervisor_;                      // guarded by mutex_
  std::shared_ptr<http_transport> transport_;  // guarded by mutex_
};

} // namespace conch::actors

namespace conch {
using actors::http_frontend;
} // namespace conch
