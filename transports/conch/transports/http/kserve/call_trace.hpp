#pragma once

#include "conch/runtime/request_trace.hpp"
#include "conch/transports/http/kserve/route_call.hpp"

namespace conch::transports::http::kserve {

/// Samples an inference call (infer, generate) for tracing, as Triton does
/// before anything else so that the rate counts every request, and stamps
/// its receipt: HTTP_RECV_START (when its first byte was parsed) and
/// HTTP_RECV_END (now). A `traceparent` header gives the W3C trace context
/// (and in opentelemetry mode always traces). Null when not traced; one
/// relaxed load while nothing traces.
runtime::request_trace_ptr start_call_trace(const route_call& call);

/// Stamps the final response's arrival (INFER_RESPONSE_COMPLETE,
/// HTTP_SEND_START) on `trace`, when there is one.
void stamp_send_start(const runtime::request_trace_ptr& trace);

/// Stamps HTTP_SEND_END and lets the trace go.
void stamp_send_end(runtime::request_trace_ptr& trace);

} // namespace conch::transports::http::kserve
