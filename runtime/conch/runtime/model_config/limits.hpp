#pragma once

#include <cstdint>

namespace conch::runtime::model_config {

/// The bounds Conch puts on the fields of a model configuration that size
/// what a load allocates or starts: threads, actors, slots and buffers made
/// before any request arrives. Triton has no such bounds; a configuration
/// past one could only end the server (an allocation of billions of
/// objects), so a load refuses it instead (validate_limits). Each bound is
/// far above what a real model uses.
struct limits {
  /// Instances of one model, every group and every GPU of a group together
  /// (instance_group[].count, multiplied by the group's GPUs). Each one is an
  /// actor, and a thread for a blocking backend.
  static constexpr int64_t max_instances = 1024;

  /// Slots of a sequence batcher: instances times the sequences each one
  /// keeps (max_batch_size for the direct strategy, max_candidate_sequences
  /// or max_batch_size for the oldest strategy). The batcher allocates and
  /// scans them all.
  static constexpr int64_t max_sequence_slots = int64_t{1} << 18;

  /// Requests in one warm-up sample (model_warmup[].batch_size): each is a
  /// copy of the sample's request, made when the model loads.
  static constexpr int64_t max_warmup_batch_size = int64_t{1} << 16;

  /// Runs of one warm-up sample (model_warmup[].count) on each instance,
  /// all of them before the model is ready.
  static constexpr int64_t max_warmup_count = int64_t{1} << 16;

  /// Requests of every warm-up sample of a model together (the sum of
  /// batch_size times count), which each instance runs before the model is
  /// ready: each is a copy of its sample's request.
  static constexpr int64_t max_warmup_requests = int64_t{1} << 20;

  /// Bytes of one tensor the configuration itself makes the server fill
  /// when it loads: a warm-up input (model_warmup[].inputs[].dims) and a
  /// sequence state or its initial value (sequence_batching.state[].dims,
  /// .initial_state[].dims). BYTES elements count 4 bytes each.
  static constexpr int64_t max_config_tensor_bytes = int64_t{1} << 30;
  // The warm-up samples of a model together hold at most the same bytes.
};

} // namespace conch::runtime::model_config
