#pragma once

#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/status.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// Writes a successful response into `out`: one `outputs` entry and one
/// raw_output_contents entry, at the same index, per output, in the order
/// the model produced them. INVALID_ARG when the outputs exceed what one
/// gRPC message may carry; INTERNAL for an output host code cannot read.
runtime::status encode_infer_response(const runtime::inference_response& response,
                                      inference::ModelInferResponse& out);

} // namespace conch::transports::grpc
