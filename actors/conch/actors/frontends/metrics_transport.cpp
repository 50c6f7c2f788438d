#include "conch/actors/frontends/metrics_transport.hpp"

namespace conch::actors {

metrics_transport::metrics_transport(
  transports::http::server_options options,
  std::shared_ptr<transports::metrics::metrics_handler> handler,
  std::shared_ptr<runtime::statistics::connection_stats> stats,
  std::shared_ptr<runtime::statistics::byte_budget> input)
  : server_(std::move(options), std::move(handler), std::move(stats), std::move(input)) {}

runtime::status metrics_transport::start() { return server_.start(); }

void metrics_transport::begin_stop(std::function<void()> drained) {
  server_.begin_stop(std::move(drained));
}

void metrics_transport::abort() { server_.abort(); }

} // namespace conch::actors
