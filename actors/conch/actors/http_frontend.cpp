#include "conch/actors/http_frontend.hpp"

#include "conch/actors/http_transport.hpp"
#include "conch/actors/server_gateway.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

namespace {

runtime::status check(const http_options& o) {
  if (o.port < 0 || o.port > 65535)
    return runtime::invalid_argument("port must be between 0 and 65535, got "
                                     + std::to_string(o.port));
  if (o.thread_count < 1)
    return runtime::invalid_argument("thread_count must be greater than 0, got "
                                     + std::to_string(o.thread_count));
  if (o.max_inflight < 0)
    return runtime::invalid_argument("max_inflight must not be negative");
  return runtime::status::ok();
}

transports::http::server_options transport_options(const http_options& o) {
  transports::http::server_options t;
  t.address = o.address;
  t.port = static_cast<uint16_t>(o.port);
  t.thread_count = o.thread_count;
  t.reuse_port = o.reuse_port;
  t.max_input_size = o.max_input_size;
  return t;
}

} // namespace

http_frontend::http_frontend(server& srv, http_options options)
  : srv_(srv), options_(std::move(options)) {}

http_frontend::~http_frontend() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (supervisor_)
    (void) srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  transport_.reset();
}

runtime::status http_frontend::start() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!srv_.live()) {
    // The server stopped, and stopped this frontend with it.
    supervisor_ = nullptr;
    return runtime::unavailable("the server is not running");
  }
  if (supervisor_)
    return runtime::already_exists("HTTP server is already running.");
  CONCH_RUNTIME_RETURN_IF_ERROR(check(options_));
  transports::http::kserve::kserve_handler_options h;
  h.server = std::make_shared<server_gateway>(srv_);
  h.max_inflight = options_.max_inflight;
  h.header_forward_pattern = options_.header_forward_pattern;
  for (const auto& g : options_.restricted_features)
    h.restricted_features.push_back({g.key, g.value, g.features});
  auto handler = transports::http::kserve::kserve_handler::make(std::move(h));
  if (!handler)
    return handler.error();
  auto transport = std::make_shared<http_transport>(transport_options(options_),
                                                    std::move(*handler));
  auto fe = srv_.add_frontend(transport);
  if (!fe) {
    CONCH_LOG_ERROR << "failed to start HTTPService: " << fe.error().message();
    return fe.error();
  }
  supervisor_ = std::move(*fe);
  transport_ = std::move(transport);
  CONCH_LOG_INFO << "Started HTTPService at " << options_.address << ":" << transport_->port();
  return runtime::status::ok();
}

runtime::status http_frontend::stop() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!supervisor_)
    return runtime::unavailable("HTTP server is not running.");
  uint16_t port = transport_ ? transport_->port() : 0;
  auto st = srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  if (st)
    CONCH_LOG_INFO << "Stopped HTTPService at " << options_.address << ":" << port;
  else
    CONCH_LOG_ERROR << "failed to stop HTTPService: " << st.message();
  return st;
}

uint16_t http_frontend::port() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return transport_ ? transport_->port() : 0;
}

} // namespace conch::actors
