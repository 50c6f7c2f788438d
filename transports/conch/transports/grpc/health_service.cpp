#include "conch/transports/grpc/health_service.hpp"

#include "conch/transports/grpc/grpc_status.hpp"

namespace conch::transports::grpc {

using ::grpc::health::v1::HealthCheckResponse;

::grpc::ServerUnaryReactor* health_service::Check(::grpc::CallbackServerContext* ctx,
                                                  const ::grpc::health::v1::HealthCheckRequest*,
                                                  HealthCheckResponse* res) {
  auto* r = ctx->DefaultReactor();
  if (auto st = limits_->check(*ctx, protocol::feature::health); !st.is_ok()) {
    r->Finish(to_grpc_status(st));
  } else if (server_->ready()) {
    res->set_status(HealthCheckResponse::SERVING);
    r->Finish(::grpc::Status::OK);
  } else if (server_->live()) {
    res->set_status(HealthCheckResponse::NOT_SERVING);
    r->Finish(::grpc::Status::OK);
  } else {
    res->set_status(HealthCheckResponse::UNKNOWN);
    r->Finish({::grpc::StatusCode::UNAVAILABLE, "the server is exiting"});
  }
  return r;
}

} // namespace conch::transports::grpc
