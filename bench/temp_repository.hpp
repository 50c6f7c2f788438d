#pragma once

#include <string>

namespace conch::bench {

/// A model repository written to a fresh temporary folder and removed when
/// destroyed, with the models of bench/models: identity_fp32 (FP32
/// [batch,16] in and out, max_batch_size 64, no batcher, one CPU instance,
/// like the example repository), identity_fp32_batched (the same with a
/// dynamic batcher), ensemble_identity_2 (two identity_fp32 steps) and
/// sequence_identity (the identity behind the sequence batcher).
class temp_repository {
 public:
  temp_repository();
  ~temp_repository();

  temp_repository(const temp_repository&) = delete;
  temp_repository& operator=(const temp_repository&) = delete;

  /// The folder; empty when it could not be written.
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

} // namespace conch::bench
