#pragma once

#include <cstddef>
#include <cstdint>

#include "conch/runtime/inference_job.hpp"

namespace conch::runtime::batching {

/// The number of batch items a job contributes to a batch: 1 when the model
/// does not batch (max_batch_size == 0), else the first dimension of the first
/// input. A missing input, an empty shape or a non-positive dimension count
/// as 1, as Triton counts them.
size_t job_batch_size(const inference_job& job, int32_t max_batch_size) noexcept;

} // namespace conch::runtime::batching
