#pragma once

#include <string>

#include "conch/transports/http/connection_policy.hpp"

namespace conch::actors {

/// Options of the metrics frontend; the fields up to thread_count equal
/// Python's Metrics.Options, the policy's fields are Conch's additions there.
struct metrics_options {
  /// The address to listen on (an IPv4 or IPv6 literal).
  std::string address = "0.0.0.0";
  /// The TCP port, 0 to 65535; 0 picks a free one (see metrics_frontend::port).
  int port = 8002;
  /// The number of libuv loop threads; at least 1.
  int thread_count = 1;
  /// Conch: the timeouts and caps each connection is held to.
  transports::http::connection_policy policy;
};

/// Every option of `o` by its name, the connection policy's fields among
/// them: `visit(name, field)` for each (see http_options' for_each_option).
template <class Visit>
void for_each_option(metrics_options& o, Visit&& visit) {
  visit("address", o.address);
  visit("port", o.port);
  visit("thread_count", o.thread_count);
  for_each_option(o.policy, visit);
}

} // namespace conch::actors

namespace conch {
using actors::metrics_options;
} // namespace conch
