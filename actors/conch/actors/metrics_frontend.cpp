#include "conch/actors/metrics_frontend.hpp"

#include "conch/actors/frontends/metrics_transport.hpp"

namespace conch::actors {

namespace {

transports::http::server_options transport_options(const metrics_options& o) {
  transports::http::server_options t;
  t.address = o.address;
  t.port = o.port;
  t.thread_count = o.thread_count;
  // A scrape has no body worth the name; refuse big ones early.
  t.max_input_size = 64 * 1024;
  t.policy = o.policy;
  return t;
}

runtime::status check(const metrics_options& o) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_port(o.port));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_thread_count(o.thread_count));
  return check(transport_options(o));
}

using transport_result = runtime::result<std::shared_ptr<listening_transport>>;

} // namespace

metrics_frontend::metrics_frontend(server& srv, metrics_options options)
  : listening_frontend(srv, "Metrics Service", "Metrics"), options_(std::move(options)),
    input_(std::make_shared<runtime::statistics::byte_budget>(options_.policy.max_inflight_bytes)) {
  publish_edge(input_);
}

runtime::status metrics_frontend::start() {
  return start_transport(options_.address, [this](uint16_t port) -> transport_result {
    CONCH_RUNTIME_RETURN_IF_ERROR(check(options_));
    // The handler holds a copy of the server handle; the frontend's
    // supervisor is stopped before the server's metrics go.
    auto handler = std::make_shared<transports::metrics::metrics_handler>(
      [srv = srv_] { return srv.metrics_text(); });
    auto o = transport_options(options_);
    o.stop_timeout = transport_stop_budget(srv_.options().exit_timeout);
    if (port != 0)
      o.port = port;
    return transport_result{
      std::make_shared<metrics_transport>(std::move(o), std::move(handler), edge_, input_)};
  });
}

} // namespace conch::actors
