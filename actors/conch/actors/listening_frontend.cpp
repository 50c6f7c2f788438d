#include "conch/actors/listening_frontend.hpp"

#include <string>

#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

runtime::status check_port(int port) {
  if (port < 0 || port > 65535)
    return runtime::invalid_argument("port must be between 0 and 65535, got "
                                     + std::to_string(port));
  return runtime::status::ok();
}

runtime::status check_thread_count(int n) {
  if (n < 1)
    return runtime::invalid_argument("thread_count must be greater than 0, got "
                                     + std::to_string(n));
  return runtime::status::ok();
}

listening_frontend::listening_frontend(server& srv, std::string service, std::string kind)
  : srv_(srv), service_(std::move(service)), kind_(std::move(kind)) {}

listening_frontend::~listening_frontend() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (supervisor_)
    (void) srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  transport_.reset();
}

runtime::status listening_frontend::start_transport(
  const std::string& address,
  const std::function<runtime::result<std::shared_ptr<listening_transport>>()>& make) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!srv_.live()) {
    // The server stopped, and stopped this frontend with it.
    supervisor_ = nullptr;
    return runtime::unavailable("the server is not running");
  }
  if (supervisor_)
    return runtime::already_exists(kind_ + " server is already running.");
  auto transport = make();
  if (!transport)
    return transport.error();
  auto fe = srv_.add_frontend(*transport);
  if (!fe) {
    CONCH_LOG_ERROR << "failed to start " << service_ << ": " << fe.error().message();
    return fe.error();
  }
  supervisor_ = std::move(*fe);
  transport_ = std::move(*transport);
  address_ = address;
  CONCH_LOG_INFO << "Started " << service_ << " at " << address_ << ":" << transport_->port();
  return runtime::status::ok();
}

runtime::status listening_frontend::stop() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!supervisor_)
    return runtime::unavailable(kind_ + " server is not running.");
  uint16_t port = transport_ ? transport_->port() : 0;
  auto st = srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  if (st)
    CONCH_LOG_INFO << "Stopped " << service_ << " at " << address_ << ":" << port;
  else
    CONCH_LOG_ERROR << "failed to stop " << service_ << ": " << st.message();
  return st;
}

uint16_t listening_frontend::port() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return transport_ ? transport_->port() : 0;
}

} // namespace conch::actors
