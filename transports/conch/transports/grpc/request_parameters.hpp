#pragma once

#include <string>

#include <google/protobuf/map.h>

#include "conch/runtime/inference_request.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// A ModelInferRequest's parameter map.
using parameter_map = google::protobuf::Map<std::string, inference::InferParameter>;

/// Applies a ModelInferRequest's parameters to `request`: the reserved ones
/// (sequence_id, sequence_start, sequence_end, priority, timeout,
/// triton_enable_empty_final_response) set its fields, other `triton_` keys
/// are INVALID_ARG, the rest become custom parameters. A value of the wrong
/// type is INVALID_ARG naming the key. triton_enable_empty_final_response is
/// checked here; the other keys are applied by runtime::apply_request_parameter
/// (conch/runtime/request_parameters.hpp), and this words its errors.
runtime::status apply_request_parameters(const parameter_map& params,
                                         runtime::inference_request& request);

} // namespace conch::transports::grpc
