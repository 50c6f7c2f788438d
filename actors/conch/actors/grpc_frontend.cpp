#include "conch/actors/grpc_frontend.hpp"

#include "conch/actors/grpc_transport.hpp"
#include "conch/actors/server_gateway.hpp"

namespace conch::actors {

grpc_frontend::grpc_frontend(server& srv, grpc_options options)
  : srv_(srv), options_(std::move(options)) {}

grpc_frontend::~grpc_frontend() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (supervisor_)
    (void) srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  transport_.reset();
}

runtime::status grpc_frontend::start() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!srv_.live()) {
    // The server stopped, and stopped this frontend with it.
    supervisor_ = nullptr;
    return runtime::unavailable("the server is not running");
  }
  if (supervisor_)
    return runtime::already_exists("gRPC server is already running.");
  if (options_.port < 0 || options_.port > 65535)
    return runtime::invalid_argument("port must be between 0 and 65535, got "
                                     + std::to_string(options_.port));
  transports::grpc::server_options o;
  o.address = options_.address;
  o.port = static_cast<uint16_t>(options_.port);
  o.reuse_port = options_.reuse_port;
  auto transport
    = std::make_shared<grpc_transport>(std::move(o), std::make_shared<server_gateway>(srv_));
  auto fe = srv_.add_frontend(transport);
  if (!fe)
    return fe.error();
  supervisor_ = std::move(*fe);
  transport_ = std::move(transport);
  return runtime::status::ok();
}

runtime::status grpc_frontend::stop() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (!supervisor_)
    return runtime::unavailable("gRPC server is not running.");
  auto st = srv_.stop_frontend(supervisor_);
  supervisor_ = nullptr;
  return st;
}

uint16_t grpc_frontend::port() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return transport_ ? transport_->port() : 0;
}

} // namespace conch::actors
