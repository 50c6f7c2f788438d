#pragma once

#include <string>

namespace conch::transports::grpc {

/// TLS of the gRPC server's listening port; the fields share their names
/// with KServeGrpc.Options.
struct tls_options {
  /// Serve TLS; off: plaintext, and the other fields are ignored.
  bool use_ssl = false;
  /// The server's certificate chain (a PEM file).
  std::string server_cert;
  /// The server certificate's private key (a PEM file).
  std::string server_key;
  /// The CA certificates client certificates must chain to (a PEM file);
  /// needed with use_mutual_auth, optional otherwise.
  std::string root_cert;
  /// Require a client certificate that root_cert verifies.
  bool use_mutual_auth = false;
};

} // namespace conch::transports::grpc
