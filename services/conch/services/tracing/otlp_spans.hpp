#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/request_trace.hpp"
#include "otlp_trace.pb.h"

namespace conch::services {

/// The spans of a finished trace and its children, as Triton's
/// OpenTelemetry mode makes them:
/// - "InferRequest", the request as the frontend saw it, with the
///   frontend's timestamps as events; below the client's span when the
///   request came with a W3C trace context, whose trace id all spans share;
/// - a span named after the model, REQUEST_START to REQUEST_END, with the
///   events REQUEST_START, QUEUE_START and REQUEST_END and the attributes
///   triton.model_name, triton.model_version, triton.trace_id,
///   triton.trace_parent_id and triton.request_id;
/// - "compute", COMPUTE_START to COMPUTE_END, with the COMPUTE_* events;
/// - each child trace's model span below its parent's model span.
/// Times are the stamps plus `unix_offset_ns` (the system clock's distance
/// from the steady clock).
void append_spans(const runtime::trace_record& trace, int64_t unix_offset_ns,
                  google::protobuf::RepeatedPtrField<otlp::Span>& out);

/// The export body for `spans`, with the resource attributes (service.name
/// "triton-inference-server" unless `resource` sets it) and the
/// instrumentation scope "triton-server".
otlp::ExportTraceServiceRequest
export_request(const std::vector<std::pair<std::string, std::string>>& resource,
               google::protobuf::RepeatedPtrField<otlp::Span>&& spans);

/// The system clock minus the steady clock, in nanoseconds, now.
int64_t steady_to_unix_offset_ns();

} // namespace conch::services
