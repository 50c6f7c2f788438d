#pragma once

#include <grpcpp/server_builder.h>

#include "conch/transports/grpc/keepalive_options.hpp"

namespace conch::transports::grpc {

/// Adds `options` to `builder` as channel arguments. The connection age
/// arguments are added only when positive, since gRPC reads 0 as "at once".
void add_keepalive_arguments(const keepalive_options& options, ::grpc::ServerBuilder& builder);

} // namespace conch::transports::grpc
