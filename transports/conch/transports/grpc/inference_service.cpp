#include "conch/transports/grpc/inference_service.hpp"

#include "conch/transports/grpc/grpc_status.hpp"
#include "conch/transports/grpc/infer_reactor.hpp"
#include "conch/transports/grpc/metadata_codec.hpp"
#include "conch/transports/grpc/model_version.hpp"
#include "conch/transports/grpc/stream_reactor.hpp"
#include "conch/transports/grpc/call_trace.hpp"

namespace conch::transports::grpc {

using protocol::feature;
using reactor = inference_service::reactor;

reactor* inference_service::finish(context* ctx, const runtime::status& st) {
  auto* r = ctx->DefaultReactor();
  r->Finish(to_grpc_status(st));
  return r;
}

reactor* inference_service::refused(context* ctx, feature f) const {
  auto st = limits_->check(*ctx, f);
  return st.is_ok() ? nullptr : finish(ctx, st);
}

reactor* inference_service::ServerLive(context* ctx, const inference::ServerLiveRequest*,
                                       inference::ServerLiveResponse* res) {
  if (auto* r = refused(ctx, feature::health))
    return r;
  res->set_live(server_->live());
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ServerReady(context* ctx, const inference::ServerReadyRequest*,
                                        inference::ServerReadyResponse* res) {
  if (auto* r = refused(ctx, feature::health))
    return r;
  res->set_ready(server_->ready());
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ModelReady(context* ctx, const inference::ModelReadyRequest* req,
                                       inference::ModelReadyResponse* res) {
  if (auto* r = refused(ctx, feature::health))
    return r;
  auto version = parse_model_version(req->version());
  if (!version)
    return finish(ctx, version.error());
  // A model's own readiness check may answer seconds later, from a thread
  // of the server's; the reactor finishes then (res lives until it does).
  auto* r = ctx->DefaultReactor();
  server_->model_ready(req->name(), *version, [r, res](runtime::status st) {
    // An unknown model is an error; a known one that is not ready is not.
    if (st.code() == runtime::errc::not_found)
      return r->Finish(to_grpc_status(st));
    res->set_ready(st.is_ok());
    r->Finish(::grpc::Status::OK);
  });
  return r;
}

reactor* inference_service::ServerMetadata(context* ctx, const inference::ServerMetadataRequest*,
                                           inference::ServerMetadataResponse* res) {
  if (auto* r = refused(ctx, feature::metadata))
    return r;
  encode_server_metadata(server_->server_metadata(), *res);
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::ModelMetadata(context* ctx, const inference::ModelMetadataRequest* req,
                                          inference::ModelMetadataResponse* res) {
  if (auto* r = refused(ctx, feature::metadata))
    return r;
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
  if (auto* r = refused(ctx, feature::model_config))
    return r;
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
  if (auto* r = refused(ctx, feature::statistics))
    return r;
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

reactor* inference_service::ModelInfer(context* ctx, const inference::ModelInferRequest* req,
                                       inference::ModelInferResponse* res) {
  if (auto* r = refused(ctx, feature::inference))
    return r;
  if (auto st = begin_infer_call(infer_settings_.get(), *ctx, *req); !st.is_ok())
    return finish(ctx, st);
  return infer_reactor::start(*server_, calls_, finisher_, *limits_, *req, *res,
                              trace_origin_of(*ctx));
}

::grpc::ServerBidiReactor<inference::ModelInferRequest, inference::ModelStreamInferResponse>*
inference_service::ModelStreamInfer(context* ctx) {
  if (auto st = limits_->check(*ctx, feature::inference); !st.is_ok())
    return stream_reactor::refuse(st);
  stream_settings settings;
  if (infer_settings_)
    settings.forwarded = infer_settings_->begin(*ctx);
  settings.limits = limits_;
  settings.finishing = &finisher_;
  return stream_reactor::start(ctx, server_, calls_, std::move(settings));
}

} // namespace conch::transports::grpc
