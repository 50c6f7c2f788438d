#include "conch/transports/http/kserve/call_trace.hpp"

#include <optional>
#include <string>

#include "conch/runtime/clock.hpp"

namespace conch::transports::http::kserve {

runtime::trace_origin trace_origin_of(const route_call& call) {
  runtime::trace_origin origin;
  if (!runtime::tracing_active())
    return origin;
  origin.by = runtime::arrival::http;
  origin.read_end_ns = runtime::now_ns();
  origin.read_start_ns = call.req->received_ns != 0 ? call.req->received_ns : origin.read_end_ns;
  if (const auto* parent = call.req->headers.find("traceparent")) {
    const auto* state = call.req->headers.find("tracestate");
    origin.context = runtime::parse_traceparent(*parent, state ? *state : std::string{});
  }
  return origin;
}

void hold_trace(runtime::request_trace_ptr& held, runtime::inference_response& r) {
  if (r.trace)
    held = std::move(r.trace);
}

void stamp_send_start(const runtime::request_trace_ptr& trace) {
  if (!trace)
    return;
  auto now = runtime::now_ns();
  trace->stamp("INFER_RESPONSE_COMPLETE", now);
  trace->stamp("HTTP_SEND_START", now);
}

void stamp_send_end(runtime::request_trace_ptr& trace) {
  if (!trace)
    return;
  trace->stamp("HTTP_SEND_END", runtime::now_ns());
  trace.reset();
}

} // namespace conch::transports::http::kserve
