#include "conch/runtime/batching/job_batch_size.hpp"

namespace conch::runtime::batching {

size_t job_batch_size(const inference_job& job, int32_t max_batch_size) noexcept {
  if (max_batch_size <= 0)
    return 1;
  const auto& inputs = job.request().inputs;
  if (inputs.empty() || inputs.front().shape.empty())
    return 1;
  const int64_t first = inputs.front().shape.front();
  return first > 0 ? static_cast<size_t>(first) : 1;
}

} // namespace conch::runtime::batching
