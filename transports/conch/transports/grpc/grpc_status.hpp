#pragma once

#include <grpcpp/support/status.h>

#include "conch/runtime/status.hpp"

namespace conch::transports::grpc {

/// The gRPC status for `st`: its code through the one status mapping table,
/// its message unchanged.
::grpc::Status to_grpc_status(const runtime::status& st);

} // namespace conch::transports::grpc
