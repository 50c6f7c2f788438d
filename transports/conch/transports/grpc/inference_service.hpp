#pragma once

#include <memory>

#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/call_limits.hpp"
#include "conch/transports/grpc/finisher.hpp"
#include "conch/transports/grpc/infer_call_settings.hpp"
#include "conch/transports/grpc/inflight_calls.hpp"
#include "grpc_service.grpc.pb.h"

namespace conch::transports::grpc {

/// The KServe GRPCInferenceService on gRPC's callback API: every RPC of the
/// protocol (spec §2.1). Every handler answers at once or hands its call to
/// a reactor or the server's callback; none blocks. A call to a restricted
/// protocol group without its metadata gets UNAVAILABLE before anything
/// else. Health, metadata, configuration and statistics here; inference in
/// infer_reactor and stream_reactor; the repository RPCs in
/// repository_rpcs.cpp, shared memory in shared_memory_rpcs.cpp, trace and
/// logging in settings_rpcs.cpp. Thread-safe.
class inference_service final : public inference::GRPCInferenceService::CallbackService {
 public:
  inference_service(gateway_ptr server, std::shared_ptr<inflight_calls> calls)
    : server_(std::move(server)), calls_(std::move(calls)) {}

  using context = ::grpc::CallbackServerContext;
  using reactor = ::grpc::ServerUnaryReactor;

  // -- health and metadata ---------------------------------------------------

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

  // -- inference -------------------------------------------------------------

  reactor* ModelInfer(context* ctx, const inference::ModelInferRequest* req,
                      inference::ModelInferResponse* res) override;
  ::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
  ModelStreamInfer(context* ctx) override;

  // -- repository (repository_rpcs.cpp) --------------------------------------

  reactor* RepositoryIndex(context* ctx, const inference::RepositoryIndexRequest* req,
                           inference::RepositoryIndexResponse* res) override;
  reactor* RepositoryModelLoad(context* ctx, const inference::RepositoryModelLoadRequest* req,
                               inference::RepositoryModelLoadResponse* res) override;
  reactor* RepositoryModelUnload(context* ctx, const inference::RepositoryModelUnloadRequest* req,
                                 inference::RepositoryModelUnloadResponse* res) override;

  // -- shared memory (shared_memory_rpcs.cpp) --------------------------------

  reactor* SystemSharedMemoryStatus(context* ctx,
                                    const inference::SystemSharedMemoryStatusRequest* req,
                                    inference::SystemSharedMemoryStatusResponse* res) override;
  reactor* SystemSharedMemoryRegister(context* ctx,
                                      const inference::SystemSharedMemoryRegisterRequest* req,
                                      inference::SystemSharedMemoryRegisterResponse* res) override;
  reactor* SystemSharedMemoryUnregister(
    context* ctx, const inference::SystemSharedMemoryUnregisterRequest* req,
    inference::SystemSharedMemoryUnregisterResponse* res) override;
  reactor* CudaSharedMemoryStatus(context* ctx, const inference::CudaSharedMemoryStatusRequest* req,
                                  inference::CudaSharedMemoryStatusResponse* res) override;
  reactor* CudaSharedMemoryRegister(context* ctx,
                                    const inference::CudaSharedMemoryRegisterRequest* req,
                                    inference::CudaSharedMemoryRegisterResponse* res) override;
  reactor* CudaSharedMemoryUnregister(context* ctx,
                                      const inference::CudaSharedMemoryUnregisterRequest* req,
                                      inference::CudaSharedMemoryUnregisterResponse* res) override;

  // -- trace and logging (settings_rpcs.cpp) ---------------------------------

  reactor* TraceSetting(context* ctx, const inference::TraceSettingRequest* req,
                        inference::TraceSettingResponse* res) override;
  reactor* LogSettings(context* ctx, const inference::LogSettingsRequest* req,
                       inference::LogSettingsResponse* res) override;

  // -- settings --------------------------------------------------------------

  /// Sets what every inference call applies (response compression,
  /// forwarded metadata); nothing by default. Called before serving.
  void set_infer_call_settings(std::shared_ptr<const infer_call_settings> settings) {
    infer_settings_ = std::move(settings);
  }

  /// Sets the restricted groups and max_inflight; none by default. Called
  /// before serving.
  void set_call_limits(std::shared_ptr<const call_limits> limits) { limits_ = std::move(limits); }

 private:
  /// Finishes the call of `ctx` with `st` at once.
  static reactor* finish(context* ctx, const runtime::status& st);

  /// The finished reactor of a call to feature `f` that the restricted
  /// groups refuse; nullptr when the call may go on.
  reactor* refused(context* ctx, protocol::feature f) const;

  gateway_ptr server_;
  std::shared_ptr<inflight_calls> calls_;
  /// Finishes the unary calls answered on a model's thread; destroyed with
  /// this service, after the server it belongs to has ended every call.
  finisher finisher_;
  std::shared_ptr<const infer_call_settings> infer_settings_;
  std::shared_ptr<const call_limits> limits_ = std::make_shared<const call_limits>();
};

} // namespace conch::transports::grpc
