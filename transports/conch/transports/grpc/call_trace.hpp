#pragma once

#include <optional>

#include <grpcpp/server_context.h>

#include "conch/runtime/request_trace.hpp"
#include "conch/runtime/submit_policy.hpp"

namespace conch::transports::grpc {

/// The W3C trace context a call's metadata carries (`traceparent`,
/// `tracestate`); nullopt when it carries none, or a malformed one.
std::optional<runtime::trace_context> trace_context_of(const ::grpc::ServerContextBase& ctx);

/// Where a request came from, for the trace the server may sample when it
/// is submitted: gRPC, read until now, with `context`. Takes no time while
/// nothing traces (one relaxed load).
runtime::trace_origin trace_origin_of(const std::optional<runtime::trace_context>& context);

/// As above, with the context of the call's metadata.
runtime::trace_origin trace_origin_of(const ::grpc::ServerContextBase& ctx);

} // namespace conch::transports::grpc
