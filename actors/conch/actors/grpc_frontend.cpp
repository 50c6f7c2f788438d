#include "conch/actors/grpc_frontend.hpp"

#include <string>
#include <utility>

#include "conch/actors/frontends/grpc_transport.hpp"
#include "conch/actors/frontends/server_gateway.hpp"

namespace conch::actors {

namespace {

// The transport's options from the frontend's; INVALID_ARG for a value out
// of range (the TLS files and the pattern are checked by the transport).
runtime::result<transports::grpc::server_options> server_options_of(const grpc_options& o) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_port(o.port));
  const std::pair<const char*, int> non_negative[] = {
    {"keepalive_time_ms", o.keepalive_time_ms},
    {"keepalive_timeout_ms", o.keepalive_timeout_ms},
    {"http2_max_pings_without_data", o.http2_max_pings_without_data},
    {"http2_min_recv_ping_interval_without_data_ms",
     o.http2_min_recv_ping_interval_without_data_ms},
    {"http2_max_ping_strikes", o.http2_max_ping_strikes},
    {"max_connection_age_ms", o.max_connection_age_ms},
    {"max_connection_age_grace_ms", o.max_connection_age_grace_ms},
    {"infer_thread_count", o.infer_thread_count},
    {"infer_allocation_pool_size", o.infer_allocation_pool_size},
    {"max_response_pool_size", o.max_response_pool_size},
  };
  for (auto [name, value] : non_negative)
    if (value < 0)
      return runtime::invalid_argument(std::string{name} + " must be >= 0, got "
                                       + std::to_string(value));
  transports::grpc::server_options s;
  static_cast<transports::grpc::listener_options&>(s) = o;
  s.tls = o;
  s.keepalive = o;
  s.infer_compression_level = o.infer_compression_level;
  s.forward_header_pattern = o.forward_header_pattern;
  if (o.max_inflight < 0)
    return runtime::invalid_argument("max_inflight must not be negative");
  for (const auto& g : o.restricted_features)
    s.restricted_features.push_back({g.key, g.value, g.features});
  s.max_inflight = o.max_inflight;
  s.client_shm = o.allow_client_shm ? transports::protocol::client_shm::allowed
                                    : transports::protocol::client_shm::denied;
  if (o.max_message_size < 1)
    return runtime::invalid_argument("max_message_size must be greater than 0, got "
                                     + std::to_string(o.max_message_size));
  s.max_message_size = o.max_message_size;
  if (o.stream_high_water == 0)
    return runtime::invalid_argument("stream_high_water must be greater than 0");
  if (o.max_stream_backlog == 0)
    return runtime::invalid_argument("max_stream_backlog must be greater than 0");
  s.max_inflight_bytes = o.max_inflight_bytes;
  s.stream_high_water = o.stream_high_water;
  s.max_stream_backlog = o.max_stream_backlog;
  return s;
}

using transport_result = runtime::result<std::shared_ptr<listening_transport>>;

} // namespace

grpc_frontend::grpc_frontend(server& srv, grpc_options options)
  : listening_frontend(srv, "GRPCInferenceService", "gRPC"), options_(std::move(options)),
    input_(std::make_shared<runtime::statistics::byte_budget>(options_.max_inflight_bytes)) {
  publish_edge(input_, false);
}

runtime::status grpc_frontend::start() {
  return start_transport(options_.address, [this](uint16_t port) -> transport_result {
    auto o = server_options_of(options_);
    if (!o)
      return o.error();
    o->shutdown_timeout = std::chrono::seconds{srv_.options().exit_timeout};
    o->stats = edge_;
    o->input = input_;
    if (port != 0)
      o->port = port;
    auto gateway = std::make_shared<server_gateway>(srv_);
    return transport_result{std::make_shared<grpc_transport>(std::move(*o), std::move(gateway))};
  });
}

} // namespace conch::actors
