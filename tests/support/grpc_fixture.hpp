#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include "conch/actors/grpc_frontend.hpp"
#include "grpc_service.grpc.pb.h"
#include "health.grpc.pb.h"
#include "support/server_fixture.hpp"

namespace conch::tests {

/// gRPC frontend options for tests: loopback and a free port.
inline actors::grpc_options test_grpc_options() {
  actors::grpc_options o;
  o.address = "127.0.0.1";
  o.port = 0;
  // The protocol tests exercise shared memory; the default (denied) has
  // tests of its own.
  o.allow_client_shm = true;
  return o;
}

/// A client context whose deadline keeps a broken server from hanging a test.
inline std::unique_ptr<grpc::ClientContext> client_context() {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds{30});
  return ctx;
}

/// A server over the example repository's C++ models with a gRPC frontend
/// on a free port, and the generated stubs of a client connected to it.
/// Stops the frontend, then the server, at the end.
class grpc_fixture : public server_fixture {
 protected:
  void start_all(actors::server_options options = example_options(),
                 actors::grpc_options grpc = test_grpc_options()) {
    auto s = start(std::move(options));
    ASSERT_TRUE(s) << s.error().to_string();
    srv_ = *s;
    grpc_ = std::make_unique<actors::grpc_frontend>(*srv_, grpc);
    auto st = grpc_->start();
    ASSERT_TRUE(st) << st.to_string();
    port_ = grpc_->port();
    ASSERT_NE(port_, 0);
    connect();
  }

  /// Opens a new channel to the current port.
  void connect() {
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                                       grpc::InsecureChannelCredentials());
    stub_ = inference::GRPCInferenceService::NewStub(channel);
    health_ = grpc::health::v1::Health::NewStub(channel);
  }

  void TearDown() override { grpc_.reset(); }

  std::optional<actors::server> srv_;
  std::unique_ptr<actors::grpc_frontend> grpc_;
  uint16_t port_ = 0;
  std::unique_ptr<inference::GRPCInferenceService::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

} // namespace conch::tests
