#include "conch/transports/grpc/inference_service.hpp"

#include "conch/transports/grpc/grpc_status.hpp"
#include "conch/transports/grpc/infer_reactor.hpp"
#include "conch/transports/grpc/metadata_codec.hpp"
#include "conch/transports/grpc/model_version.hpp"
#include "conch/transports/grpc/stream_reactor.hpp"

namespace conch::transports::grpc {

namespace {

using reactor = ::grpc::ServerUnaryReactor;

reactor* finish(::grpc::CallbackServerContext* ctx, const runtime::status& st) {
  auto* r = ctx->DefaultReactor();
  r->Finish(to_grpc_status(st));
  return r;
}

} // namespace

reactor* inference_service::ServerLive(context* ctx, const inference::ServerLiveRequest*,
                                       inference::ServerLiveResponse* res) {
  res->set_live(server_->live());
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ServerReady(context* ctx, const inference::ServerReadyRequest*,
                                        inference::ServerReadyResponse* res) {
  res->set_ready(server_->ready());
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ModelReady(context* ctx, const inference::ModelReadyRequest* req,
                                       inference::ModelReadyResponse* res) {
  auto version = parse_model_version(req->version());
  if (!version)
    return finish(ctx, version.error());
  auto st = server_->model_ready(req->name(), *version);
  // An unknown model is an error; a known one that is not READY is not.
  if (st.code() == runtime::errc::not_found)
    return finish(ctx, st);
  res->set_ready(st.is_ok());
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ServerMetadata(context* ctx, const inference::ServerMetadataRequest*,
                                           inference::ServerMetadataResponse* res) {
  encode_server_metadata(server_->server_metadata(), *res);
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ModelMetadata(context* ctx, const inference::ModelMetadataRequest* req,
                                          inference::ModelMetadataResponse* res) {
  auto version = parse_model_version(req->version());
  if (!version)
    return finish(ctx, version.error());
  auto info = server_->model_metadata(req->name(), *version);
  if (!info)
    return finish(ctx, info.error());
  encode_model_metadata(*info, *res);
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ModelConfig(context* ctx, const inference::ModelConfigRequest* req,
                                        inference::ModelConfigResponse* res) {
  auto version = parse_model_version(req->version());
  if (!version)
    return finish(ctx, version.error());
  auto config = server_->model_config(req->name(), *version);
  if (!config)
    return finish(ctx, config.error());
  res->mutable_config()->CopyFrom(**config);
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ModelStatistics(context* ctx,
                                            const inference::ModelStatisticsRequest* req,
                                            inference::ModelStatisticsResponse* res) {
  auto version = parse_model_version(req->version());
  if (!version)
    return finish(ctx, version.error());
  auto stats = server_->model_statistics(req->name(), *version);
  if (!stats)
    return finish(ctx, stats.error());
  for (const auto& s : *stats)
    encode_model_statistics(s, *res->add_model_stats());
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ModelInfer(context*, const inference::ModelInferRequest* req,
                                       inference::ModelInferResponse* res) {
  return infer_reactor::start(*server_, calls_, *req, *res);
}

::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
inference_service::ModelStreamInfer(context* ctx) {
  return stream_reactor::start(ctx, server_, calls_);
}

} // namespace conch::transports::grpc
