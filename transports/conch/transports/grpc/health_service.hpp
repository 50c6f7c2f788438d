#pragma once

#include "conch/transports/gateway.hpp"
#include "health.grpc.pb.h"

namespace conch::transports::grpc {

/// The standard grpc.health.v1 Health service: Check answers SERVING while
/// the server is ready, NOT_SERVING while it is live but not ready, and
/// UNKNOWN with UNAVAILABLE once it is exiting. Thread-safe.
class health_service final : public ::grpc::health::v1::Health::CallbackService {
 public:
  explicit health_service(gateway_ptr server) : server_(std::move(server)) {}

  ::grpc::ServerUnaryReactor* Check(::grpc::CallbackServerContext* ctx,
                                    const ::grpc::health::v1::HealthCheckRequest* req,
                                    ::grpc::health::v1::HealthCheckResponse* res) override;

 private:
  gateway_ptr server_;
};

} // namespace conch::transports::grpc
