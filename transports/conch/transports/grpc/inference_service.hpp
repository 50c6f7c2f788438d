#pragma once

#include <memory>

#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/inflight_calls.hpp"
#include "grpc_service.grpc.pb.h"

namespace conch::transports::grpc {

/// The KServe GRPCInferenceService on gRPC's callback API: health,
/// metadata, configuration, statistics, ModelInfer and ModelStreamInfer. Every handler
/// answers at once or hands its call to a reactor; none blocks. The RPCs
/// not overridden here answer UNIMPLEMENTED. Thread-safe.
class inference_service final : public inference::GRPCInferenceService::CallbackService {
 public:
  inference_service(gateway_ptr server, std::shared_ptr<inflight_calls> calls)
    : server_(std::move(server)), calls_(std::move(calls)) {}

  using context = ::grpc::CallbackServerContext;
  using reactor = ::grpc::ServerUnaryReactor;

  reactor* ServerLive(context* ctx, const inference::ServerLiveRequest* req,
                      inference::ServerLiveResponse* res) override;
  reactor* ServerReady(context* ctx, const inference::ServerReadyRequest* req,
                       inference::ServerReadyResponse* res) override;
  reactor* ModelReady(context* ctx, const inference::ModelReadyRequest* req,
                      inference::ModelReadyResponse* res) override;
  reactor* ServerMetadata(context* ctx, const inference::ServerMetadataRequest* req,
                          inference::ServerMetadataResponse* res) override;
  reactor* ModelMetadata(context* ctx, const inference::ModelMetadataRequest* req,
                         inference::ModelMetadataResponse* res) override;
  reactor* ModelConfig(context* ctx, const inference::ModelConfigRequest* req,
                       inference::ModelConfigResponse* res) override;
  reactor* ModelStatistics(context* ctx, const inference::ModelStatisticsRequest* req,
                           inference::ModelStatisticsResponse* res) override;
  reactor* ModelInfer(context* ctx, const inference::ModelInferRequest* req,
                      inference::ModelInferResponse* res) override;
  ::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(context* ctx) override;

 private:
  gateway_ptr server_;
  std::shared_ptr<inflight_calls> calls_;
};

} // namespace conch::transports::grpc
