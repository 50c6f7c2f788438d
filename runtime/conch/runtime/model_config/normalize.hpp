#pragma once

#include <string>

#include "conch/runtime/status.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// The facts about the server that normalisation depends on.
struct normalize_options {
  /// Number of GPUs the server may use (ids 0..gpu_count-1); 0 on a CPU-only machine.
  int gpu_count = 0;
};

/// Fills in the defaults Triton fills in before it serves or reports a
/// configuration, so that the /config JSON matches Triton's:
/// - an empty `name` becomes `directory_name` (a different name is INVALID_ARG);
/// - an unset `version_policy` becomes `latest { num_versions: 1 }`;
/// - dynamic batching without `preferred_batch_size` gets `[max_batch_size]`
///   when max_batch_size > 0, and so does sequence batching's `oldest`;
/// - sequence batching without `max_sequence_idle_microseconds` gets 1000000;
/// - outside ensembles: unset `optimization.input_pinned_memory` /
///   `output_pinned_memory` get `enable: true`, a model without instance
///   groups gets one named after the model, unnamed groups are named
///   "<model>_<index>", KIND_AUTO becomes KIND_GPU when every listed GPU
///   exists (KIND_CPU otherwise), a KIND_GPU group without `gpus` gets all
///   GPUs, and a `count` below 1 becomes 1 (2 for CPU groups of the
///   onnxruntime and tensorflow backends, as Triton does).
/// Fails with INVALID_ARG when a KIND_GPU group cannot be placed. Messages
/// name the field but not the file; callers that know it prefix it.
status normalize(inference::ModelConfig& config, const std::string& directory_name,
                 const normalize_options& options = {});

} // namespace conch::runtime::model_config
