#include "conch/transports/grpc/call_trace.hpp"

#include <string_view>

#include "conch/runtime/clock.hpp"

namespace conch::transports::grpc {

namespace {

std::string_view metadata(const ::grpc::ServerContextBase& ctx, const char* key) {
  const auto& md = ctx.client_metadata();
  auto it = md.find(key);
  return it == md.end() ? std::string_view{} : std::string_view{it->second.data(),
                                                                it->second.size()};
}

} // namespace

std::optional<runtime::trace_context> trace_context_of(const ::grpc::ServerContextBase& ctx) {
  auto parent = metadata(ctx, "traceparent");
  if (parent.empty())
    return std::nullopt;
  return runtime::parse_traceparent(parent, metadata(ctx, "tracestate"));
}

runtime::trace_origin trace_origin_of(const std::optional<runtime::trace_context>& context) {
  runtime::trace_origin origin;
  if (!runtime::tracing_active())
    return origin;
  origin.by = runtime::arrival::grpc;
  origin.read_end_ns = runtime::now_ns();
  origin.read_start_ns = origin.read_end_ns;
  origin.context = context;
  return origin;
}

runtime::trace_origin trace_origin_of(const ::grpc::ServerContextBase& ctx) {
  if (!runtime::tracing_active())
    return {};
  return trace_origin_of(trace_context_of(ctx));
}

} // namespace conch::transports::grpc
