#include "conch/transports/grpc/call_trace.hpp"

#include "conch/runtime/clock.hpp"

namespace conch::transports::grpc {

namespace {

std::string_view metadata(const ::grpc::ServerContextBase& ctx, const char* key) {
  const auto& md = ctx.client_metadata();
  auto it = md.find(key);
  return it == md.end() ? std::string_view{} : std::string_view{it->second.data(),
                                                                it->second.size()};
}

void stamp_receipt(runtime::request_trace& trace, uint64_t read_start) {
  auto now = runtime::now_ns();
  trace.stamp("GRPC_WAITREAD_START", read_start != 0 ? read_start : now);
  trace.stamp("GRPC_WAITREAD_END", now);
}

} // namespace

std::optional<runtime::trace_context> trace_context_of(const ::grpc::ServerContextBase& ctx) {
  auto parent = metadata(ctx, "traceparent");
  if (parent.empty())
    return std::nullopt;
  return runtime::parse_traceparent(parent, metadata(ctx, "tracestate"));
}

runtime::request_trace_ptr start_call_trace(const gateway& server, const std::string& model,
                                            const std::optional<runtime::trace_context>& context,
                                            uint64_t read_start) {
  if (!runtime::tracing_active())
    return nullptr;
  auto trace = server.sample_trace(model, context.has_value());
  if (!trace)
    return nullptr;
  stamp_receipt(*trace, read_start);
  if (context)
    trace->set_context(*context);
  return trace;
}

runtime::request_trace_ptr start_call_trace(const gateway& server, const std::string& model,
                                            const ::grpc::ServerContextBase& ctx,
                                            uint64_t read_start) {
  if (!runtime::tracing_active())
    return nullptr;
  return start_call_trace(server, model, trace_context_of(ctx), read_start);
}

} // namespace conch::transports::grpc
