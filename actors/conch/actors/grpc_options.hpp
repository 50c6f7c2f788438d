#pragma once

#include <string>

namespace conch::actors {

/// Options of the KServe gRPC frontend; the fields share their names with
/// Python's KServeGrpc.Options.
struct grpc_options {
  /// The address to listen on (an IPv4 or IPv6 literal, or a host name).
  std::string address = "0.0.0.0";
  /// The TCP port, 0 to 65535; 0 picks a free one (see grpc_frontend::port).
  int port = 8001;
  /// Let other sockets bind the same port (SO_REUSEPORT); off by default,
  /// so that a port in use fails the start.
  bool reuse_port = false;
};

} // namespace conch::actors

namespace conch {
using actors::grpc_options;
} // namespace conch
