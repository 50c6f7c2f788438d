#pragma once

#include <memory>

#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/call_limits.hpp"
#include "health.grpc.pb.h"

namespace conch::transports::grpc {

/// The standard grpc.health.v1 Health service: Check answers SERVING while
/// the server is ready, NOT_SERVING while it is live but not ready, and
/// UNKNOWN with UNAVAILABLE once it is exiting. It belongs to the health
/// group: where that group is restricted, a call without its metadata gets
/// UNAVAILABLE "This protocol is restricted, expecting header '<key>'", as
/// the KServe health RPCs do. Thread-safe.
class health_service final : public ::grpc::health::v1::Health::CallbackService {
 public:
  explicit health_service(gateway_ptr server) : server_(std::move(server)) {}

  ::grpc::ServerUnaryReactor* Check(::grpc::CallbackServerContext* ctx,
                                    const ::grpc::health::v1::HealthCheckRequest* req,
                                    ::grpc::health::v1::HealthCheckResponse* res) override;

  /// Sets the restricted groups (those of the inference service); none by
  /// default. Called before serving.
  void set_call_limits(std::shared_ptr<const call_limits> limits) { limits_ = std::move(limits); }

 private:
  gateway_ptr server_;
  std::shared_ptr<const call_limits> limits_ = std::make_shared<const call_limits>();
};

} // namespace conch::transports::grpc
