#pragma once

#include "conch/actors/listening_frontend.hpp"
#include "conch/transports/grpc/grpc_server.hpp"

namespace conch::actors {

/// The KServe gRPC frontend's transport, as its frontend supervisor drives
/// it: the gRPC server with the inference and health services. Called by the
/// supervisor, one call at a time; `port()` may be read by any thread once
/// start() returned.
class grpc_transport final : public listening_transport {
 public:
  grpc_transport(transports::grpc::server_options options, transports::gateway_ptr server)
    : server_(std::move(options), std::move(server)) {}

  std::string name() const override { return "gRPC"; }
  runtime::status start() override { return server_.start(); }
  void begin_stop(std::function<void()> drained) override {
    server_.begin_stop(std::move(drained));
  }
  void abort() override { server_.abort(); }

  /// The bound port; 0 before start.
  uint16_t port() const noexcept override { return server_.bound_port(); }

 private:
  transports::grpc::grpc_server server_;
};

} // namespace conch::actors
