#pragma once

#include <memory>
#include <string>

#include <grpcpp/security/server_credentials.h>

#include "conch/runtime/result.hpp"
#include "conch/transports/grpc/tls_options.hpp"

namespace conch::transports::grpc {

/// The credentials of the listening port: insecure ones without use_ssl,
/// else TLS with the certificate and key read from their files now.
/// INVALID_ARG naming the option when a file is missing, unreadable or
/// empty, or when use_mutual_auth comes without root_cert.
runtime::result<std::shared_ptr<::grpc::ServerCredentials>>
server_credentials(const tls_options& options);

} // namespace conch::transports::grpc
