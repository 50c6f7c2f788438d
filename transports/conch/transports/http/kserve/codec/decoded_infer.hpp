#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/inference_request.hpp"

namespace conch::transports::http::kserve::codec {

/// A place in a registered shared-memory region, named by a request's
/// `shared_memory_region`, `shared_memory_offset` and `shared_memory_byte_size`
/// parameters. The codec only reads the names; resolving the region (and
/// checking the bounds) is the shared-memory manager's job.
struct shared_memory_ref {
  std::string region;
  uint64_t offset = 0;
  uint64_t byte_size = 0;
};

/// How one output goes back to the client.
struct output_encoding {
  /// The output's name.
  std::string name;
  /// True for the binary tensor extension, false for JSON `data`.
  bool binary = false;
  /// Classification: the number of top classes to return; 0 for none.
  uint64_t classification = 0;
  /// Set when the client asked for the output in shared memory.
  std::optional<shared_memory_ref> shared_memory;
};

/// An input whose data lies in shared memory: its tensor in
/// `request.inputs[input_index]` has no data until the caller resolves `ref`.
struct shared_memory_input {
  size_t input_index = 0;
  shared_memory_ref ref;
};

/// A decoded KServe v2 HTTP inference request: the protocol-neutral request,
/// plus what the response encoder needs to answer it the way it was asked.
struct decoded_infer {
  // -- the request -----------------------------------------------------------

  /// The request; its binary inputs alias the HTTP request body.
  runtime::inference_request request;
  /// Inputs whose data is in shared memory, to be resolved before submitting.
  std::vector<shared_memory_input> shared_memory_inputs;

  // -- how to answer ---------------------------------------------------------

  /// The outputs the client listed, in its order.
  std::vector<output_encoding> outputs;
  /// The request-level `binary_data_output` parameter: the kind of every
  /// output the client did not list.
  bool binary_data_output = false;
  /// True when the request used the binary tensor extension (it carried
  /// Inference-Header-Content-Length).
  bool binary_request = false;
  /// True for a raw binary request (Inference-Header-Content-Length: 0): the
  /// whole body is the data of the model's only input. The codec leaves that
  /// input's name, datatype and shape empty for the caller to fill from the
  /// model configuration; every output is returned binary.
  bool raw_binary = false;
  /// True when the model's first dimension is the batch (max_batch_size > 0).
  /// Set by the caller before encoding; classification then ranks each batch
  /// entry on its own.
  bool model_batches = false;

  // -- lookup ----------------------------------------------------------------

  /// The entry the client listed for output `name`, or nullptr when it did
  /// not list it (the output then goes as binary_data_output says).
  const output_encoding* listed_output(std::string_view name) const noexcept;
};

} // namespace conch::transports::http::kserve::codec
