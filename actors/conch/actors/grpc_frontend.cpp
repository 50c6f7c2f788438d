#include "conch/actors/grpc_frontend.hpp"

#include <string>
#include <utility>

#include "conch/actors/grpc_transport.hpp"
#include "conch/actors/server_gateway.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

namespace {

// The transport's options from the frontend's; INVALID_ARG for a value out
// of range (the TLS files and the pattern are checked by the transport).
runtime::result<transports::grpc::server_options> server_options_of(const grpc_options& o) {
  if (o.port < 0 || o.port > 65535)
    return runtime::invalid_argument("port must be between 0 and 65535, got "
                                     + std::to_string(o.port));
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
  s.address = o.address;
  s.port = static_cast<uint16_t>(o.port);
  s.reuse_port = o.reuse_port;
  s.tls = {o.use_ssl, o.server_cert, o.server_key, o.root_cert, o.use_mutual_auth};
  s.keepalive = {o.keepalive_time_ms,
                 o.keepalive_timeout_ms,
                 o.keepalive_permit_without_calls,
                 o.http2_max_pings_without_data,
                 o.http2_min_recv_ping_interval_without_data_ms,
                 o.http2_max_ping_strikes,
                 o.max_connection_age_ms,
                 o.max_connection_age_grace_ms};
  s.infer_compression_level = o.infer_compression_level;
  s.forward_header_pattern = o.forward_header_pattern;
  if (o.max_inflight < 0)
    return runtime::invalid_argument("max_inflight must not be negative");
  for (const auto& g : o.restricted_features)
    s.restricted_features.push_back({g.key, g.value, g.features});
  s.max_inflight = o.max_inflight;
  return s;
}

} // namespace

grpc_frontend::grpc_frontend(server& srv, grpc_options options)
  : srv_(srv), options_(std::move(options)) {}

grpc_frontend::~grpc_frontend() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (supervisor_)
    (void) srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  transport_.reset();
}

runtime::status grpc_frontend::start() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!srv_.live()) {
    // The server stopped, and stopped this frontend with it.
    supervisor_ = nullptr;
    return runtime::unavailable("the server is not running");
  }
  if (supervisor_)
    return runtime::already_exists("gRPC server is already running.");
  auto o = server_options_of(options_);
  if (!o)
    return o.error();
  auto transport
    = std::make_shared<grpc_transport>(std::move(*o), std::make_shared<server_gateway>(srv_));
  auto fe = srv_.add_frontend(transport);
  if (!fe) {
    CONCH_LOG_ERROR << "failed to start GRPCInferenceService: " << fe.error().message();
    return fe.error();
  }
  supervisor_ = std::move(*fe);
  transport_ = std::move(transport);
  CONCH_LOG_INFO << "Started GRPCInferenceService at " << options_.address << ":" << transport_->port();
  return runtime::status::ok();
}

runtime::status grpc_frontend::stop() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!supervisor_)
    return runtime::unavailable("gRPC server is not running.");
  uint16_t port = transport_ ? transport_->port() : 0;
  auto st = srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  if (st)
    CONCH_LOG_INFO << "Stopped GRPCInferenceService at " << options_.address << ":" << port;
  else
    CONCH_LOG_ERROR << "failed to stop GRPCInferenceService: " << st.message();
  return st;
}

uint16_t grpc_frontend::port() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return transport_ ? transport_->port() : 0;
}

} // namespace conch::actors
