// The trace and logging RPCs of inference_service (spec §1.14, §1.15,
// §2.1): the same answers as the HTTP frontend's, through the gateway. A
// model's trace settings need the model ready (the gateway checks).

#include "conch/transports/grpc/inference_service.hpp"
#include "conch/transports/grpc/log_settings_codec.hpp"
#include "conch/transports/grpc/trace_settings_codec.hpp"

namespace conch::transports::grpc {

using protocol::feature;
using reactor = inference_service::reactor;

reactor* inference_service::TraceSetting(context* ctx, const inference::TraceSettingRequest* req,
                                         inference::TraceSettingResponse* res) {
  if (auto* r = refused(ctx, feature::trace))
    return r;
  const auto& model = req->model_name();
  if (req->settings().empty()) {
    auto settings = server_->trace_settings(model);
    if (settings)
      encode_trace_settings(*settings, *res);
    return finish(ctx, settings ? runtime::status::ok() : settings.error());
  }
  auto update = decode_trace_settings(*req);
  if (!update)
    return finish(ctx, update.error());
  auto settings = server_->update_trace_settings(model, *update);
  if (settings)
    encode_trace_settings(*settings, *res);
  return finish(ctx, settings ? runtime::status::ok() : settings.error());
}

reactor* inference_service::LogSettings(context* ctx, const inference::LogSettingsRequest* req,
                                        inference::LogSettingsResponse* res) {
  if (auto* r = refused(ctx, feature::logging))
    return r;
  if (req->settings().empty()) {
    encode_log_settings(server_->logging(), *res);
    return finish(ctx, runtime::status::ok());
  }
  auto update = decode_log_settings(*req);
  if (!update)
    return finish(ctx, update.error());
  auto settings = server_->update_logging(*update);
  if (!settings)
    return finish(ctx, settings.error());
  encode_log_settings(*settings, *res);
  return finish(ctx, runtime::status::ok());
}

} // namespace conch::transports::grpc
