#pragma once

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/result.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/encode_infer_response.hpp"
#include "conch/transports/protocol/client_shm.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// A ModelInferRequest made ready for the server, and how to answer it.
struct prepared_infer {
  /// The request; its shared-memory inputs alias their regions.
  runtime::inference_request request;
  /// The version it resolved to, for the submit policy.
  runtime::resolved_model_ptr model;
  /// True when the model is decoupled (0..N responses per request).
  bool decoupled = false;
  /// What the response encoder needs beyond the response itself.
  response_encoding encoding;
};

/// Readies `message` for the server: parses its version, finds the model
/// (the gateway's NOT_FOUND and UNAVAILABLE errors), refuses a decoupled
/// model with UNSUPPORTED unless `allow_decoupled`, decodes the message
/// (moving its raw contents out: the call owns it and gRPC reads it no
/// more), gives shared-memory inputs the bytes of their regions, and makes
/// the regions of shared-memory outputs the request's allocator. The
/// regions come from the gateway's registry, shared with the other
/// frontends; a message that names one is refused with
/// protocol::client_shm_disabled() when `shm` is denied. Runs on a gRPC
/// thread; never blocks.
runtime::result<prepared_infer> prepare_infer(gateway& server,
                                              inference::ModelInferRequest& message,
                                              bool allow_decoupled, protocol::client_shm shm);

} // namespace conch::transports::grpc
