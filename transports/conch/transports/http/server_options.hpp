#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "conch/runtime/status.hpp"
#include "conch/transports/http/connection_policy.hpp"

namespace conch::transports::http {

/// How the HTTP transport listens and what it accepts.
struct server_options {
  /// The address to listen on (IPv4 or IPv6 literal); "0.0.0.0" is every IPv4 address.
  std::string address = "0.0.0.0";
  /// The TCP port; 0 picks a free one (see server::bound_port).
  uint16_t port = 8000;
  /// The number of libuv loop threads serving connections.
  int thread_count = 8;
  /// Give each loop its own listening socket with SO_REUSEPORT, so that
  /// several servers (or processes) may share the port. When false the loops
  /// share one listening socket.
  bool reuse_port = false;
  /// The largest request body, in bytes, before and after decompression.
  size_t max_input_size = 64 * 1024 * 1024;
  /// The largest request line plus header block, in bytes (431 beyond).
  size_t max_header_size = 64 * 1024;
  /// Requests one connection may have unanswered before the transport stops
  /// reading from it.
  size_t max_pipelined_requests = 32;
  /// Bytes of written-but-unsent output above which the transport stops
  /// reading from a connection until the client catches up.
  size_t write_high_water = 4 * 1024 * 1024;
  /// Bytes of unsent streamed output beyond which a connection whose client
  /// does not read is closed (its request is cancelled).
  size_t max_stream_backlog = 64 * 1024 * 1024;
  /// The backlog passed to listen(2).
  int listen_backlog = 1024;

  /// Timeouts and caps of connections (connection_policy.hpp).
  connection_policy policy;
  /// The most a stop may wait on clients, from begin_stop to the last
  /// connection closed: no wait on a client (its request still arriving,
  /// its answers unread, its close) runs past it, and the drain deadline is
  /// drawn in to leave an answer cut short time to be written within it. A
  /// frontend sets what its server's exit timeout leaves. 0: no bound.
  std::chrono::milliseconds stop_timeout{0};
};

/// The largest body a request may have: max_input_size, or the whole
/// max_inflight_bytes budget where that is smaller, so that a body which
/// could never be admitted is refused as too large rather than as busy.
size_t body_limit(const server_options& options) noexcept;

/// INVALID_ARG naming the first option out of range (a negative timeout, a
/// zero size or thread count).
runtime::status check(const server_options& options);

} // namespace conch::transports::http
