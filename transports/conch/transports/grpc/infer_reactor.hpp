#pragma once

#include <memory>

#include <grpcpp/support/server_callback.h>

#include "conch/runtime/submit_policy.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/call_limits.hpp"
#include "conch/transports/grpc/finisher.hpp"
#include "conch/transports/grpc/inflight_calls.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

struct infer_call;

/// The reactor of one ModelInfer call. It checks and decodes the request on
/// the gRPC thread, submits it through the gateway and returns at once; the
/// server's final response finishes the call from the server's thread. A
/// client that goes away cancels the request. Deletes itself in OnDone.
class infer_reactor final : public ::grpc::ServerUnaryReactor {
 public:
  /// Starts a call; beyond the max_inflight of `limits` it finishes at once
  /// with UNAVAILABLE. `request` and `response` belong to gRPC and stay
  /// valid until the reactor finished; the request's raw contents are moved
  /// out. A call answered on another thread while other calls are in flight
  /// is finished by `finishing`, which outlives every call. `origin` opens
  /// the request's trace should the server sample one; the call stamps its
  /// GRPC_SEND_* on it.
  static infer_reactor* start(gateway& server, std::shared_ptr<inflight_calls> calls,
                              finisher& finishing,
                              const call_limits& limits,
                              const inference::ModelInferRequest& request,
                              inference::ModelInferResponse& response,
                              runtime::trace_origin origin = {});

  void OnCancel() override;
  void OnDone() override;

  /// Both reactions run on the gRPC thread that completes the call rather
  /// than as a task on gRPC's executor, which costs a thread wake-up per
  /// call (as gRPC's own default reactor does). They never block: OnCancel
  /// copies the cancel function under a lock held for that alone, and
  /// cancelling only flags the job and posts to its owners (a job that
  /// waits in a lane is answered, which finishes the call, which gRPC
  /// allows from a reaction); OnDone frees the call.
  bool InternalInlineable() override { return true; }

 private:
  infer_reactor() = default;

  std::shared_ptr<infer_call> call_;
};

} // namespace conch::transports::grpc
