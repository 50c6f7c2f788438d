#pragma once

#include <chrono>
#include <cstddef>

namespace conch::transports::http {

/// What one client may hold of an HTTP frontend, and for how long: the
/// timeouts and caps every connection of a transport is held to. Defaults
/// are what a server facing the internet would ship (nginx's, mostly). A
/// timeout of 0 disables it. How each one acts is in docs/transports-http.md.
struct connection_policy {
  /// From a connection's accept, or a request's first byte, until its
  /// request line and headers are complete. Past it: 408 when part of a
  /// request arrived, else the connection closes.
  std::chrono::milliseconds header_timeout{30'000};
  /// The longest pause between two reads of a request body (408 past it).
  std::chrono::milliseconds body_timeout{60'000};
  /// How long a connection may sit idle between requests before it closes.
  std::chrono::milliseconds keepalive_timeout{75'000};
  /// The longest a write may wait for a client that does not read; the
  /// connection closes past it (its requests are cancelled).
  std::chrono::milliseconds write_timeout{60'000};
  /// At a stop, how long a client still sending a request, reading its
  /// answers or closing may take (each of them at most this long); past it
  /// the connection closes. Connections waiting on the server are bounded
  /// by the server's exit timeout instead.
  std::chrono::milliseconds drain_timeout{5'000};
  /// Connections open at once across the loops; beyond it new connections
  /// are closed as soon as they are accepted. 0: no limit.
  size_t max_connections = 4096;
  /// Bytes of request bodies held at once across the loops (as they
  /// arrive, and until their request is done); a body that would pass it
  /// is answered 503 and its connection closes. 0: no limit.
  size_t max_inflight_bytes = size_t{1} << 30;
};

/// Every field of `p` by its name, for the layers that read options by name
/// (the Python binding): `visit(name, field)` for each.
template <class Visit>
void for_each_option(connection_policy& p, Visit&& visit) {
  visit("header_timeout", p.header_timeout);
  visit("body_timeout", p.body_timeout);
  visit("keepalive_timeout", p.keepalive_timeout);
  visit("write_timeout", p.write_timeout);
  visit("drain_timeout", p.drain_timeout);
  visit("max_connections", p.max_connections);
  visit("max_inflight_bytes", p.max_inflight_bytes);
}

} // namespace conch::transports::http
