#pragma once

#include "conch/actors/listening_frontend.hpp"
#include "conch/actors/grpc_options.hpp"
#include "conch/actors/server.hpp"

namespace conch::actors {

/// The KServe v2 gRPC frontend of a server (GRPCInferenceService and
/// grpc.health.v1 Health). start() adds it to the server's supervision tree,
/// so the server stops it first when it stops; stop() stops it alone,
/// letting calls in flight finish. It may be started again after a stop.
/// Keeps its server alive. start() and stop() block until done, so they
/// must not be called from a thread of the actor system's scheduler.
/// Thread-safe.
class grpc_frontend final : public listening_frontend {
 public:
  grpc_frontend(server& srv, grpc_options options);

  /// Stops the frontend if it runs, while the options its restarts read
  /// still exist.
  ~grpc_frontend() { shutdown(); }

  /// Binds the port and starts serving. ALREADY_EXISTS when running;
  /// UNAVAILABLE when the port is in use or the server stopped; INVALID_ARG
  /// for an option out of range, a TLS file that cannot be read, or a
  /// forward_header_pattern that is not a regular expression.
  runtime::status start();

  const grpc_options& options() const noexcept { return options_; }

 private:
  grpc_options options_;
  std::shared_ptr<runtime::statistics::byte_budget> input_;  // across restarts
};

} // namespace conch::actors

namespace conch {
using actors::grpc_frontend;
} // namespace conch
