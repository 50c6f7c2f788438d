#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/status.hpp"
#include "conch/runtime/shm/tensor_io.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// How the outputs of one request go back, beyond raw bytes in the message.
struct response_encoding {
  /// The regions of the outputs the client placed in shared memory; null
  /// when there are none.
  std::shared_ptr<runtime::shm::output_regions> shared_memory;
  /// (output name, class count) for each output the client asked to
  /// classify.
  std::vector<std::pair<std::string, uint64_t>> classification;
  /// True when the model's first dimension is the batch: classification
  /// then ranks each batch entry on its own.
  bool model_batches = false;
};

/// Writes a successful response into `out` (spec §2.4): one `outputs` entry
/// and one raw_output_contents entry, at the same index, per output, in the
/// order the model produced them. An output in shared memory is copied into
/// its region (unless the model wrote it there) and gets an empty raw entry;
/// a classified output becomes BYTES "<value>:<index>[:<label>]" strings.
/// INVALID_ARG when the outputs exceed what one gRPC message may carry, an
/// output does not fit its region or cannot be classified; INTERNAL for an
/// output host code cannot read.
runtime::status encode_infer_response(const runtime::inference_response& response,
                                      const response_encoding& how,
                                      inference::ModelInferResponse& out);

/// As above, for a request that asked for nothing beyond raw bytes.
inline runtime::status encode_infer_response(const runtime::inference_response& response,
                                             inference::ModelInferResponse& out) {
  return encode_infer_response(response, response_encoding{}, out);
}

} // namespace conch::transports::grpc
