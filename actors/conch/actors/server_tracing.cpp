// The trace settings and trace sampling of conch::server (server.hpp).

#include "conch/actors/server.hpp"
#include "conch/actors/server/server_core.hpp"
#include "conch/runtime/clock.hpp"

namespace conch::actors {

runtime::tracing::trace_settings server::trace_settings(const std::string& model) const {
  return core_->traces->settings(model);
}

runtime::result<runtime::tracing::trace_settings>
server::update_trace_settings(const std::string& model,
                              const runtime::tracing::trace_settings_update& update) {
  return core_->traces->update(model, update);
}

namespace {

// The stamps of the protocol the request arrived by: when its frontend
// began and finished reading it (now when it did not take the time).
void stamp_arrival(runtime::request_trace& trace, const runtime::trace_origin& origin) {
  const char* start = nullptr;
  const char* end = nullptr;
  switch (origin.by) {
    case runtime::arrival::inprocess:
      return;
    case runtime::arrival::http:
      start = "HTTP_RECV_START";
      end = "HTTP_RECV_END";
      break;
    case runtime::arrival::grpc:
      start = "GRPC_WAITREAD_START";
      end = "GRPC_WAITREAD_END";
      break;
  }
  auto read_end = origin.read_end_ns != 0 ? origin.read_end_ns : runtime::now_ns();
  trace.stamp(start, origin.read_start_ns != 0 ? origin.read_start_ns : read_end);
  trace.stamp(end, read_end);
}

} // namespace

void server::open_trace(runtime::inference_request& request,
                        const runtime::trace_origin& origin) const {
  auto trace = core_->traces->sample(request.model_name, origin.context.has_value());
  if (!trace)
    return;
  stamp_arrival(*trace, origin);
  if (origin.context)
    trace->set_context(*origin.context);
  request.trace = std::move(trace);
}

void server::flush_traces() const { core_->traces->flush(); }

} // namespace conch::actors
