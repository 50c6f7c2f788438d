#pragma once

namespace conch::transports::grpc {

/// Keepalive, HTTP/2 ping and connection age settings of the gRPC server,
/// as gRPC's channel arguments; the fields share their names and defaults
/// with KServeGrpc.Options (and tritonserver's --grpc-* flags).
struct keepalive_options {
  /// Milliseconds between keepalive pings on an idle transport
  /// (GRPC_ARG_KEEPALIVE_TIME_MS).
  int keepalive_time_ms = 7'200'000;
  /// Milliseconds to wait for a ping's acknowledgement before closing the
  /// connection (GRPC_ARG_KEEPALIVE_TIMEOUT_MS).
  int keepalive_timeout_ms = 20'000;
  /// Send keepalive pings even without calls in flight
  /// (GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS).
  bool keepalive_permit_without_calls = false;
  /// Pings the server sends without data before it must send data; 0: no
  /// limit (GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA).
  int http2_max_pings_without_data = 2;
  /// The shortest interval between a client's pings without data that the
  /// server accepts without a strike
  /// (GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS).
  int http2_min_recv_ping_interval_without_data_ms = 300'000;
  /// Strikes (too frequent pings) before the server closes the connection
  /// with GOAWAY; 0: no limit (GRPC_ARG_HTTP2_MAX_PING_STRIKES).
  int http2_max_ping_strikes = 2;
  /// Milliseconds after which a connection is gracefully closed; 0: never
  /// (GRPC_ARG_MAX_CONNECTION_AGE_MS).
  int max_connection_age_ms = 0;
  /// Milliseconds that calls may still run on a connection closed for its
  /// age before it is forced shut; 0: no limit
  /// (GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS).
  int max_connection_age_grace_ms = 0;
};

} // namespace conch::transports::grpc
