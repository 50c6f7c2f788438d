#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "conch/runtime/parameter.hpp"
#include "conch/runtime/status.hpp"
#include "conch/runtime/tensor.hpp"

namespace conch::runtime {

class output_labels;
class request_trace;

/// One response to an inference request. A non-decoupled model sends exactly
/// one, final; a decoupled model sends zero or more and then a final one,
/// which may be empty.
struct inference_response {
  std::string model_name;
  int64_t model_version = 0;
  /// The request's id.
  std::string id;
  std::vector<tensor> outputs;
  parameter_list parameters;
  /// Not ok when the request failed; such a response is always final.
  status error;
  /// True on the last response of a request.
  bool final = false;
  /// The class labels of the model's outputs (label_filename), for the
  /// classification extension; null when the model has none.
  std::shared_ptr<const output_labels> labels;
  /// The request's trace, on the final response of a network frontend's
  /// request that the server sampled (inference_job::hand_trace_back): the
  /// frontend stamps its send on it and lets it go once sent.
  std::shared_ptr<request_trace> trace;
};

/// Receives the responses of one request. Called from Conch's threads (model
/// instances, actors), never concurrently for one request, and exactly once
/// with a final response. Must not block.
using response_callback = std::function<void(inference_response&&)>;

} // namespace conch::runtime
