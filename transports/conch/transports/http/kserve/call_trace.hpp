#pragma once

#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/request_trace.hpp"
#include "conch/runtime/submit_policy.hpp"
#include "conch/transports/http/kserve/route_call.hpp"

namespace conch::transports::http::kserve {

/// Where an inference call (infer, generate) came from, for the trace the
/// server may sample when it is submitted: HTTP, read from its first parsed
/// byte until now, with the W3C context of its `traceparent` header. Reads
/// nothing while nothing traces (one relaxed load).
runtime::trace_origin trace_origin_of(const route_call& call);

/// Takes the request's trace off its final response into `held`, when the
/// server sampled one.
void hold_trace(runtime::request_trace_ptr& held, runtime::inference_response& r);

/// Stamps the final response's arrival (INFER_RESPONSE_COMPLETE,
/// HTTP_SEND_START) on `trace`, when there is one.
void stamp_send_start(const runtime::request_trace_ptr& trace);

/// Stamps HTTP_SEND_END and lets the trace go.
void stamp_send_end(runtime::request_trace_ptr& trace);

} // namespace conch::transports::http::kserve
