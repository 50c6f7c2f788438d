#pragma once

#include <memory>
#include <string>

#include <grpcpp/security/server_credentials.h>

#include "conch/runtime/result.hpp"

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

/// The credentials of the listening port: insecure ones without use_ssl,
/// else TLS with the certificate and key read from their files now.
/// INVALID_ARG naming the option when a file is missing, unreadable or
/// empty, or when use_mutual_auth comes without root_cert.
runtime::result<std::shared_ptr<::grpc::ServerCredentials>>
server_credentials(const tls_options& options);

} // namespace conch::transports::grpc
