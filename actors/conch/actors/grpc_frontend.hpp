#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

#include <caf/actor.hpp>

#include "conch/actors/grpc_options.hpp"
#include "conch/actors/server.hpp"

namespace conch::actors {

class grpc_transport;

/// The KServe v2 gRPC frontend of a server (GRPCInferenceService and
/// grpc.health.v1 Health). start() adds it to the server's supervision tree,
/// so the server stops it first when it stops; stop() stops it alone,
/// letting calls in flight finish. It may be started again after a stop.
/// Keeps its server alive. start() and stop() block until done, so they
/// must not be called from a thread of the actor system's scheduler.
/// Thread-safe.
class grpc_frontend {
 public:
  grpc_frontend(server& srv, grpc_options options);
  grpc_frontend(const grpc_frontend&) = delete;
  grpc_frontend& operator=(const grpc_frontend&) = delete;

  /// Stops the frontend if it runs.
  ~grpc_frontend();

  /// Binds the port and starts serving. ALREADY_EXISTS when running;
  /// UNAVAILABLE when the port is in use or the server stopped; INVALID_ARG
  /// for an option out of range, a TLS file that cannot be read, or a
  /// forward_header_pattern that is not a regular expression.
  runtime::status start();

  /// Stops serving: calls in flight are answered, then the server shuts
  /// down. UNAVAILABLE when not running.
  runtime::status stop();

  /// The port the latest start bound (the picked one for port 0); 0 before.
  uint16_t port() const;

  const grpc_options& options() const noexcept { return options_; }

 private:
  server srv_;
  grpc_options options_;
  mutable std::mutex mutex_;
  caf::actor supervisor_;                      // guarded by mutex_
  std::shared_ptr<grpc_transport> transport_;  // guarded by mutex_
};

} // namespace conch::actors

namespace conch {
using actors::grpc_frontend;
} // namespace conch
