#pragma once

#include <cstddef>
#include <string>

#include "conch/transports/http/connection_policy.hpp"

namespace conch::transports::http {

/// What a user sets of how an HTTP frontend listens and what it accepts:
/// written once here, and shared by the transport's server_options and the
/// KServe HTTP frontend's public options (actors::http_options), which
/// derive from it.
struct listener_options {
  /// The address to listen on (an IPv4 or IPv6 literal); "0.0.0.0" is
  /// every IPv4 address.
  std::string address = "0.0.0.0";
  /// The TCP port, 0 to 65535; 0 picks a free one (the frontend's port(),
  /// the transport's bound_port(), tell which).
  int port = 8000;
  /// Give each loop thread its own listening socket with SO_REUSEPORT, so
  /// that several servers (or processes) may share the port. When false the
  /// loops share one listening socket.
  bool reuse_port = false;
  /// The number of libuv loop threads serving connections; at least 1.
  int thread_count = 8;
  /// The largest request body in bytes, before and after decompression
  /// (400 beyond it).
  size_t max_input_size = 64 * 1024 * 1024;
  /// The largest request line plus header block in bytes (431 beyond).
  size_t max_header_size = 64 * 1024;
  /// The timeouts and caps each connection is held to.
  connection_policy policy;
};

/// Every option of `o` by its name, the connection policy's fields among
/// them: `visit(name, field)` for each.
template <class Visit>
void for_each_option(listener_options& o, Visit&& visit) {
  visit("address", o.address);
  visit("port", o.port);
  visit("reuse_port", o.reuse_port);
  visit("thread_count", o.thread_count);
  visit("max_input_size", o.max_input_size);
  visit("max_header_size", o.max_header_size);
  for_each_option(o.policy, visit);
}

} // namespace conch::transports::http
