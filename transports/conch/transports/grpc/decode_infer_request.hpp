#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/shm/region_ref.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// An output the client listed, and how it wants it back.
struct requested_output {
  std::string name;
  /// Where the output goes when the client placed it in shared memory.
  std::optional<runtime::shm::region_ref> shared_memory;
  /// Classification: the number of top classes to return; 0 for none.
  uint64_t classification = 0;
};

/// A decoded ModelInferRequest.
struct decoded_infer {
  /// The request; inputs read from shared memory have no data yet.
  runtime::inference_request request;
  /// (index into request.inputs, where its data lies) for each input whose
  /// data is in a shared-memory region.
  std::vector<std::pair<size_t, runtime::shm::region_ref>> shared_memory_inputs;
  /// The outputs the client listed, in its order.
  std::vector<requested_output> outputs;
};

/// Decodes `message` into a protocol-neutral request for version `version`
/// (-1: any). Each input's data comes from exactly one place: a
/// shared-memory region, the next raw_input_contents entry (counting only
/// inputs that read raw data), or its typed contents. The raw entries are
/// moved out of `message` and shared by the request's tensors, so nothing
/// is copied. Every error is INVALID_ARG and names the input or parameter.
runtime::result<decoded_infer> decode_infer_request(inference::ModelInferRequest& message,
                                                    int64_t version);

} // namespace conch::transports::grpc
