#pragma once

#include <string>

namespace conch::transports::grpc {

/// Where the gRPC server listens: written once here, and shared by the
/// transport's server_options and the KServe gRPC frontend's public options
/// (actors::grpc_options), which derive from it.
struct listener_options {
  /// An IPv4 or IPv6 literal, or a host name.
  std::string address = "0.0.0.0";
  /// The TCP port, 0 to 65535; 0 picks a free one (the frontend's port()
  /// tells which).
  int port = 8001;
  /// Let other sockets bind the same port (SO_REUSEPORT); off by default,
  /// so that a port in use fails the start.
  bool reuse_port = false;
};

} // namespace conch::transports::grpc
