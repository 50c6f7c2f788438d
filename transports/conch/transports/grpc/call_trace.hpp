#pragma once

#include <optional>
#include <string>

#include <grpcpp/server_context.h>

#include "conch/runtime/request_trace.hpp"
#include "conch/transports/gateway.hpp"

namespace conch::transports::grpc {

/// The W3C trace context a call's metadata carries (`traceparent`,
/// `tracestate`); nullopt when it carries none, or a malformed one.
std::optional<runtime::trace_context> trace_context_of(const ::grpc::ServerContextBase& ctx);

/// Samples a request to `model` for tracing, as the gateway's settings say,
/// and stamps its receipt: GRPC_WAITREAD_START at `read_start` (0: now) and
/// GRPC_WAITREAD_END now. The call's metadata gives the trace context.
/// Null when the request is not traced.
runtime::request_trace_ptr start_call_trace(const gateway& server, const std::string& model,
                                            const ::grpc::ServerContextBase& ctx,
                                            uint64_t read_start = 0);

/// As start_call_trace, with a context read once per stream.
runtime::request_trace_ptr start_call_trace(const gateway& server, const std::string& model,
                                            const std::optional<runtime::trace_context>& context,
                                            uint64_t read_start = 0);

} // namespace conch::transports::grpc
