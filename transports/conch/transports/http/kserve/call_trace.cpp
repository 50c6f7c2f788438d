#include "conch/transports/http/kserve/call_trace.hpp"

#include <optional>
#include <string>

#include "conch/runtime/clock.hpp"

namespace conch::transports::http::kserve {

runtime::request_trace_ptr start_call_trace(const route_call& call) {
  if (!runtime::tracing_active())
    return nullptr;
  std::optional<runtime::trace_context> context;
  if (const auto* parent = call.req->headers.find("traceparent")) {
    const auto* state = call.req->headers.find("tracestate");
    context = runtime::parse_traceparent(*parent, state ? *state : std::string{});
  }
  auto trace = call.settings.server->sample_trace(call.target.model, context.has_value());
  if (!trace)
    return nullptr;
  auto now = runtime::now_ns();
  trace->stamp("HTTP_RECV_START", call.req->received_ns != 0 ? call.req->received_ns : now);
  trace->stamp("HTTP_RECV_END", now);
  if (context)
    trace->set_context(std::move(*context));
  return trace;
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
