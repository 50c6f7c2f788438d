#include "conch/actors/metrics_frontend.hpp"

#include "conch/actors/metrics_transport.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

namespace {

runtime::status check(const metrics_options& o) {
  if (o.port < 0 || o.port > 65535)
    return runtime::invalid_argument("port must be between 0 and 65535, got "
                                     + std::to_string(o.port));
  if (o.thread_count < 1)
    return runtime::invalid_argument("thread_count must be greater than 0, got "
                                     + std::to_string(o.thread_count));
  return runtime::status::ok();
}

transports::http::server_options transport_options(const metrics_options& o) {
  transports::http::server_options t;
  t.address = o.address;
  t.port = static_cast<uint16_t>(o.port);
  t.thread_count = o.thread_count;
  // A scrape has no body worth the name; refuse big ones early.
  t.max_input_size = 64 * 1024;
  return t;
}

} // namespace

metrics_frontend::metrics_frontend(server& srv, metrics_options options)
  : srv_(srv), options_(std::move(options)) {}

metrics_frontend::~metrics_frontend() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (supervisor_)
    (void) srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  transport_.reset();
}

runtime::status metrics_frontend::start() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!srv_.live()) {
    // The server stopped, and stopped this frontend with it.
    supervisor_ = nullptr;
    return runtime::unavailable("the server is not running");
  }
  if (supervisor_)
    return runtime::already_exists("Metrics server is already running.");
  CONCH_RUNTIME_RETURN_IF_ERROR(check(options_));
  // The handler holds a copy of the server handle; the frontend's
  // supervisor is stopped before the server's metrics go.
  auto handler = std::make_shared<transports::metrics::metrics_handler>(
    [srv = srv_] { return srv.metrics_text(); });
  auto transport = std::make_shared<metrics_transport>(transport_options(options_),
                                                       std::move(handler));
  auto fe = srv_.add_frontend(transport);
  if (!fe) {
    CONCH_LOG_ERROR << "failed to start Metrics Service: " << fe.error().message();
    return fe.error();
  }
  supervisor_ = std::move(*fe);
  transport_ = std::move(transport);
  CONCH_LOG_INFO << "Started Metrics Service at " << options_.address << ":" << transport_->port();
  return runtime::status::ok();
}

runtime::status metrics_frontend::stop() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!supervisor_)
    return runtime::unavailable("Metrics server is not running.");
  uint16_t port = transport_ ? transport_->port() : 0;
  auto st = srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  if (st)
    CONCH_LOG_INFO << "Stopped Metrics Service at " << options_.address << ":" << port;
  else
    CONCH_LOG_ERROR << "failed to stop Metrics Service: " << st.message();
  return st;
}

uint16_t metrics_frontend::port() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return transport_ ? transport_->port() : 0;
}

} // namespace conch::actors
