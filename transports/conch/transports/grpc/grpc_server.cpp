#include "conch/transports/grpc/grpc_server.hpp"

#include <chrono>
#include <limits>

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

namespace conch::transports::grpc {

namespace {

std::string listen_address(const server_options& o) {
  auto host = o.address.find(':') != std::string::npos ? "[" + o.address + "]" : o.address;
  return host + ":" + std::to_string(o.port);
}

} // namespace

grpc_server::grpc_server(server_options options, gateway_ptr server)
  : options_(std::move(options)), calls_(std::make_shared<inflight_calls>()),
    inference_(server, calls_), health_(server) {}

grpc_server::~grpc_server() {
  if (server_ && !stopper_.joinable()) {
    calls_->stop();
    calls_->cancel_all();
    server_->Shutdown(std::chrono::system_clock::now());
    server_->Wait();
  }
  if (!stopper_.joinable())
    return;
  // The last owner may let go of this server from `drained` itself.
  if (stopper_.get_id() == std::this_thread::get_id())
    stopper_.detach();
  else
    stopper_.join();
}

runtime::status grpc_server::start() {
  ::grpc::ServerBuilder builder;
  int selected = 0;
  auto address = listen_address(options_);
  builder.AddListeningPort(address, ::grpc::InsecureServerCredentials(), &selected);
  // gRPC allows SO_REUSEPORT by default, which would let a second server
  // share a port in use instead of failing: set it explicitly.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, options_.reuse_port ? 1 : 0);
  builder.SetMaxReceiveMessageSize(std::numeric_limits<int32_t>::max());
  builder.SetMaxSendMessageSize(std::numeric_limits<int32_t>::max());
  builder.RegisterService(&inference_);
  builder.RegisterService(&health_);
  auto server = builder.BuildAndStart();
  if (!server || selected == 0)
    return runtime::unavailable("failed to start the gRPC server: cannot listen on " + address);
  server_ = std::move(server);
  port_ = static_cast<uint16_t>(selected);
  return runtime::status::ok();
}

void grpc_server::begin_stop(std::function<void()> drained) {
  calls_->stop();
  shut_down(std::move(drained));
}

void grpc_server::abort() {
  calls_->stop();
  calls_->cancel_all();
  shut_down(nullptr);
}

void grpc_server::shut_down(std::function<void()> drained) {
  if (stopper_.joinable() || !server_) {
    if (drained && !server_)
      drained();
    return;
  }
  stopper_ = std::thread{[this, drained = std::move(drained)] {
    // Without a deadline Shutdown waits for the calls in flight; abort()
    // cancels them when the stop takes too long.
    server_->Shutdown();
    server_->Wait();
    if (drained)
      drained();
  }};
}

} // namespace conch::transports::grpc
