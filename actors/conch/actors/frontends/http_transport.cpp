#include "conch/actors/frontends/http_transport.hpp"

namespace conch::actors {

http_transport::http_transport(transports::http::server_options options,
                               std::shared_ptr<transports::http::handler> handler,
                               std::shared_ptr<runtime::statistics::connection_stats> stats,
                               std::shared_ptr<runtime::statistics::byte_budget> input,
                               std::string name)
  : server_(std::move(options), std::move(handler), std::move(stats), std::move(input)),
    name_(std::move(name)) {}

runtime::status http_transport::start() { return server_.start(); }

void http_transport::begin_stop(std::function<void()> drained) {
  server_.begin_stop(std::move(drained));
}

void http_transport::abort() { server_.abort(); }

} // namespace conch::actors
