#pragma once

#include <cstdint>
#include <string>

#include <uv.h>

#include "conch/runtime/result.hpp"

namespace conch::transports::http {

/// The socket address for `address` (an IPv4 or IPv6 literal) and `port`.
runtime::result<sockaddr_storage> resolve_address(const std::string& address, uint16_t port);

/// Initialises `tcp` on `loop`, binds it to `addr` (with SO_REUSEPORT when
/// `reuse_port`) and listens. A taken port is `unavailable`, naming it.
/// `initialised` tells whether `tcp` must be closed, failure or not.
runtime::status open_listener(uv_loop_t* loop, uv_tcp_t* tcp, const sockaddr_storage& addr,
                              bool reuse_port, int backlog, uv_connection_cb on_connection,
                              bool& initialised);

/// Initialises `tcp` on `loop` over a duplicate of the listening socket
/// `shared` (bound by another loop) and listens on it: each new connection
/// goes to whichever loop accepts it first. On failure `tcp` must still be
/// closed when `initialised` is set.
runtime::status share_listener(uv_loop_t* loop, uv_tcp_t* tcp, const uv_tcp_t& shared,
                               int backlog, uv_connection_cb on_connection, bool& initialised);

/// The local port `tcp` is bound to, or 0.
uint16_t local_port(const uv_tcp_t& tcp);

} // namespace conch::transports::http
