#pragma once

#include <cstddef>
#include <memory>

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/call_limits.hpp"
#include "conch/transports/grpc/finisher.hpp"
#include "conch/transports/grpc/infer_call_settings.hpp"
#include "conch/transports/grpc/inflight_calls.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

struct stream_call;

/// What a stream applies beyond the defaults.
struct stream_settings {
  /// The default bound of requests in flight per stream.
  static constexpr size_t default_max_outstanding = 1024;

  /// Requests of the stream in flight at most; beyond them the stream reads
  /// no more until one is answered.
  size_t max_outstanding = default_max_outstanding;
  /// Metadata added to each request before it is decoded.
  forwarded_headers forwarded;
  /// The server's admission of requests (max_inflight); none when null.
  std::shared_ptr<const call_limits> limits;
  /// Starts the stream's writes for responses answered on a model's thread
  /// while other calls are in flight; none when null (the model's thread
  /// starts them).
  finisher* finishing = nullptr;
};

/// The reactor of one ModelStreamInfer call (KServe protocol §2.5). Each
/// request read is submitted at once; the responses of non-decoupled models
/// are written in request order, those of decoupled models as they come.
/// Errors are written into the stream, which stays open, unless the client
/// sent the `triton_grpc_error: true` header: then the first error ends the
/// stream with its status. Every response carries `triton_final_response`.
/// A request beyond the server's max_inflight gets an in-stream UNAVAILABLE
/// error. Closing or cancelling the stream cancels its requests. Deletes
/// itself in OnDone. The stream's state lives in stream_call.
class stream_reactor final
  : public ::grpc::ServerBidiReactor<inference::ModelInferRequest,
                                     inference::ModelStreamInferResponse> {
 public:
  /// The default bound of requests in flight per stream.
  static constexpr size_t default_max_outstanding = stream_settings::default_max_outstanding;

  /// Starts a stream and its first read.
  static stream_reactor* start(::grpc::CallbackServerContext* ctx, gateway_ptr server,
                               std::shared_ptr<inflight_calls> calls,
                               stream_settings settings = {});

  /// A stream that ends at once with `st`, reading nothing.
  static stream_reactor* refuse(const runtime::status& st);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  stream_reactor() = default;

  std::shared_ptr<stream_call> call_;
};

} // namespace conch::transports::grpc
