#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conch/actors/feature_group.hpp"

namespace conch::actors {

/// Options of the KServe gRPC frontend; the fields share their names and
/// defaults with Python's KServeGrpc.Options (and so with upstream
/// tritonfrontend). start() checks them.
struct grpc_options {
  /// The address to listen on (an IPv4 or IPv6 literal, or a host name).
  std::string address = "0.0.0.0";
  /// The TCP port, 0 to 65535; 0 picks a free one (see grpc_frontend::port).
  int port = 8001;
  /// Let other sockets bind the same port (SO_REUSEPORT); off by default,
  /// so that a port in use fails the start.
  bool reuse_port = false;

  // -- TLS -------------------------------------------------------------------

  /// Serve TLS with server_cert and server_key; the TLS fields below are
  /// ignored without it.
  bool use_ssl = false;
  /// The server's certificate chain, a PEM file read at start.
  std::string server_cert;
  /// The private key of server_cert, a PEM file read at start.
  std::string server_key;
  /// The CA certificates that client certificates must chain to, a PEM
  /// file; required with use_mutual_auth.
  std::string root_cert;
  /// Mutual TLS: every client must present a certificate that root_cert
  /// verifies (GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY).
  bool use_mutual_auth = false;

  // -- keepalive and HTTP/2 pings (gRPC channel arguments, all >= 0) ---------

  /// Milliseconds between keepalive pings on an idle transport.
  int keepalive_time_ms = 7'200'000;
  /// Milliseconds to wait for a keepalive ping's acknowledgement.
  int keepalive_timeout_ms = 20'000;
  /// Send keepalive pings even without calls in flight.
  bool keepalive_permit_without_calls = false;
  /// Pings the server may send without data in between; 0: no limit.
  int http2_max_pings_without_data = 2;
  /// The shortest interval of a client's pings without data that does not
  /// count as a strike.
  int http2_min_recv_ping_interval_without_data_ms = 300'000;
  /// Strikes before the server closes the connection; 0: no limit.
  int http2_max_ping_strikes = 2;
  /// Milliseconds after which a connection is closed gracefully; 0: never.
  int max_connection_age_ms = 0;
  /// Milliseconds that calls may still run on a connection closed for its
  /// age; 0: no limit.
  int max_connection_age_grace_ms = 0;

  // -- inference calls -------------------------------------------------------

  /// The compression level of ModelInfer and ModelStreamInfer responses:
  /// 0 NONE, 1 LOW, 2 MED, 3 HIGH (Grpc_compression_level). gRPC picks an
  /// algorithm the client accepts. Compressed requests are always accepted.
  int infer_compression_level = 0;
  /// Upstream's count of completion-queue threads for inference. Conch's
  /// callback server runs on gRPC's own thread pool: accepted and ignored.
  int infer_thread_count = 2;
  /// Upstream's pool of reusable inference request states: accepted and
  /// ignored (Conch allocates per call).
  int infer_allocation_pool_size = 8;
  /// Upstream's bound of pooled response messages: accepted and ignored.
  int max_response_pool_size = 2'147'483'647;
  /// An ECMAScript regular expression, matched without regard to case:
  /// request metadata whose keys it finds a match in become string
  /// parameters of inference requests. Empty: none.
  std::string forward_header_pattern;

  // -- Conch's additions -----------------------------------------------------

  /// Protocol groups behind required metadata: a call to a feature of a
  /// group without metadata `triton-grpc-protocol-<key>` set to `value`
  /// gets UNAVAILABLE "This protocol is restricted, expecting header
  /// 'triton-grpc-protocol-<key>'". A feature may be in one group at most;
  /// start() answers INVALID_ARG otherwise, and for an unknown feature name
  /// or an empty key.
  std::vector<feature_group> restricted_features;
  /// Let clients register system and CUDA shared-memory regions and name
  /// them in inference requests (Triton's --allow-client-shm). Off: the
  /// register and unregister RPCs and an inference request that names a
  /// region get UNIMPLEMENTED "Client shared memory is disabled. ..."; the
  /// status RPCs are still served.
  bool allow_client_shm = false;
  /// Requests waiting on the server (inference calls, each request of a
  /// stream, repository calls) at most in flight; beyond it they get
  /// UNAVAILABLE at once. 0: no limit.
  int64_t max_inflight = 4096;
  /// The largest message received or sent, in bytes; larger ones fail
  /// with RESOURCE_EXHAUSTED. Triton's default, INT32_MAX.
  int max_message_size = 2'147'483'647;
  /// Bytes of requests in flight at most (their encoded size); a request
  /// beyond it gets UNAVAILABLE. 0: no limit.
  size_t max_inflight_bytes = size_t{1} << 30;
  /// Bytes of responses a stream may have waiting for its client before it
  /// reads no further requests.
  size_t stream_high_water = 4 * 1024 * 1024;
  /// Bytes of responses a stream may have waiting before it ends with
  /// RESOURCE_EXHAUSTED and its requests are cancelled (a client that does
  /// not read a decoupled model's responses).
  size_t max_stream_backlog = 64 * 1024 * 1024;
};

/// Every option of `o` by its name (KServeGrpc.Options' field names):
/// `visit(name, field)` for each. The Python binding builds the options
/// from keyword arguments of these names and gives Python the defaults from
/// here, so each default is written once, in this header.
template <class Visit>
void for_each_option(grpc_options& o, Visit&& visit) {
  visit("address", o.address);
  visit("port", o.port);
  visit("reuse_port", o.reuse_port);
  visit("use_ssl", o.use_ssl);
  visit("server_cert", o.server_cert);
  visit("server_key", o.server_key);
  visit("root_cert", o.root_cert);
  visit("use_mutual_auth", o.use_mutual_auth);
  visit("keepalive_time_ms", o.keepalive_time_ms);
  visit("keepalive_timeout_ms", o.keepalive_timeout_ms);
  visit("keepalive_permit_without_calls", o.keepalive_permit_without_calls);
  visit("http2_max_pings_without_data", o.http2_max_pings_without_data);
  visit("http2_min_recv_ping_interval_without_data_ms",
        o.http2_min_recv_ping_interval_without_data_ms);
  visit("http2_max_ping_strikes", o.http2_max_ping_strikes);
  visit("max_connection_age_ms", o.max_connection_age_ms);
  visit("max_connection_age_grace_ms", o.max_connection_age_grace_ms);
  visit("infer_compression_level", o.infer_compression_level);
  visit("infer_thread_count", o.infer_thread_count);
  visit("infer_allocation_pool_size", o.infer_allocation_pool_size);
  visit("max_response_pool_size", o.max_response_pool_size);
  visit("forward_header_pattern", o.forward_header_pattern);
  visit("restricted_features", o.restricted_features);
  visit("allow_client_shm", o.allow_client_shm);
  visit("max_inflight", o.max_inflight);
  visit("max_message_size", o.max_message_size);
  visit("max_inflight_bytes", o.max_inflight_bytes);
  visit("stream_high_water", o.stream_high_water);
  visit("max_stream_backlog", o.max_stream_backlog);
}

} // namespace conch::actors

namespace conch {
using actors::grpc_options;
} // namespace conch
