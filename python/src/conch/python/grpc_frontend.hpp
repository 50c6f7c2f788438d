#pragma once

#include <cstdint>
#include <memory>

#include "conch/actors/grpc_frontend.hpp"
#include "conch/actors/server_host.hpp"
#include "conch/python/server.hpp"

namespace conch::python {

/// The KServe gRPC frontend as Python sees it (_conch.GrpcFrontend). It holds
/// the server's host, so the server and its actor system outlive it, and the
/// server stops it when it stops. Every method requires the GIL and releases
/// it while it waits.
class py_grpc_frontend {
 public:
  /// Raises InvalidArgumentError("Server not started") for a stopped server.
  /// Binds nothing yet.
  py_grpc_frontend(py_server& srv, actors::grpc_options options);

  /// Stops the frontend if it runs, then lets go of the host (GIL released).
  ~py_grpc_frontend();

  py_grpc_frontend(const py_grpc_frontend&) = delete;
  py_grpc_frontend& operator=(const py_grpc_frontend&) = delete;

  /// Binds and starts serving (GIL released). Raises AlreadyExistsError when
  /// running, UnavailableError when the port is in use or the server stopped.
  void start();

  /// Stops serving, letting requests in flight finish (GIL released). Raises
  /// UnavailableError when not running; a no-op once the server stopped it.
  void stop();

  /// The port the latest start bound; 0 before the first start.
  uint16_t port();

 private:
  // Declared first, destroyed last: the frontend uses the host's server.
  std::shared_ptr<actors::server_host> host_;
  std::unique_ptr<actors::grpc_frontend> frontend_;
};

} // namespace conch::python
