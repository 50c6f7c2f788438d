#pragma once

#include "conch/runtime/status.hpp"
#include "conch/transports/http/kserve/codec/decoded_infer.hpp"
#include "model_config.pb.h"

namespace conch::transports::http::kserve {

/// Completes the input of a raw binary request (Inference-Header-Content-
/// Length: 0, spec §1.6) from the model's configuration: the model must have
/// exactly one input; its name and datatype come from the configuration and
/// its shape from the dims, the one variable dimension (at most one) taking
/// what the byte count gives; BYTES is one element; a batching model gets a
/// batch of one. INVALID_ARG when the body does not fit.
runtime::status complete_raw_input(const inference::ModelConfig& config,
                                   codec::decoded_infer& decoded);

} // namespace conch::transports::http::kserve
