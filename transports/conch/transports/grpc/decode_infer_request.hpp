#pragma once

#include <string>
#include <vector>

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/result.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// A decoded ModelInferRequest.
struct decoded_infer {
  /// The request; inputs read from shared memory have no data yet.
  runtime::inference_request request;
  /// Indices into request.inputs of the inputs whose data lies in a
  /// shared-memory region (their `shared_memory_*` parameters name it).
  std::vector<size_t> shared_memory_inputs;
  /// True when an output asks for shared memory or classification.
  bool special_outputs = false;
};

/// Decodes `message` into a protocol-neutral request for version `version`
/// (-1: any). Each input's data comes from exactly one place: a
/// shared-memory region, the next raw_input_contents entry (counting only
/// inputs that read raw data), or its typed contents. The raw entries are
/// moved out of `message` and shared by the request's tensors, so nothing
/// is copied. Every error is INVALID_ARG and names the input.
runtime::result<decoded_infer> decode_infer_request(inference::ModelInferRequest& message,
                                                    int64_t version);

} // namespace conch::transports::grpc
