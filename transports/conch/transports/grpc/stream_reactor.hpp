#pragma once

#include <memory>

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/inflight_calls.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

struct stream_call;

/// The reactor of one ModelStreamInfer call (KServe protocol §2.5). Each
/// request read is submitted at once; the responses of non-decoupled models
/// are written in request order, those of decoupled models as they come.
/// Errors are written into the stream, which stays open, unless the client
/// sent the `triton_grpc_error: true` header: then the first error ends the
/// stream with its status. Every response carries `triton_final_response`.
/// At most `max_outstanding` requests of one stream are in flight; beyond
/// that the reactor reads no more until one is answered. Closing or
/// cancelling the stream cancels its requests. Deletes itself in OnDone.
class stream_reactor final
  : public ::grpc::ServerBidiReactor<inference::ModelInferRequest,
                                     inference::ModelStreamInferResponse> {
 public:
  /// The default bound of requests in flight per stream.
  static constexpr size_t default_max_outstanding = 1024;

  /// Starts a stream and its first read.
  static stream_reactor* start(::grpc::CallbackServerContext* ctx, gateway_ptr server,
                               std::shared_ptr<inflight_calls> calls,
                               size_t max_outstanding = default_max_outstanding);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  stream_reactor() = default;

  std::shared_ptr<stream_call> call_;
};

} // namespace conch::transports::grpc
