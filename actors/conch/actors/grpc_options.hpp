#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conch/actors/feature_group.hpp"
#include "conch/transports/grpc/keepalive_options.hpp"
#include "conch/transports/grpc/listener_options.hpp"
#include "conch/transports/grpc/tls_options.hpp"

namespace conch::actors {

/// Options of the KServe gRPC frontend; the fields share their names and
/// defaults with Python's KServeGrpc.Options (and so with upstream
/// tritonfrontend). Where it listens, its TLS and its keepalive and HTTP/2
/// ping settings are the transport's (transports::grpc::listener_options,
/// tls_options, keepalive_options: address, port, reuse_port; use_ssl,
/// server_cert, server_key, root_cert, use_mutual_auth; keepalive_time_ms
/// and the other channel arguments, all >= 0), written once there. start()
/// checks them.
struct grpc_options : transports::grpc::listener_options,
                      transports::grpc::tls_options,
                      transports::grpc::keepalive_options {
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
