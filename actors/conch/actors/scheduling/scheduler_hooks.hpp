#pragma once

#include <memory>
#include <vector>

#include <caf/actor_addr.hpp>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/response_cache.hpp"
#include "conch/runtime/statistics/model_statistics.hpp"

namespace conch::actors {

/// Tells a scheduler that one of its queued jobs was cancelled, so that the
/// job is answered at once rather than when an instance frees up. Holds only
/// the scheduler's address: a job never keeps its scheduler alive.
class scheduler_cancel_listener final : public runtime::cancel_listener {
 public:
  explicit scheduler_cancel_listener(caf::actor_addr scheduler) : scheduler_(std::move(scheduler)) {}
  void on_cancel() noexcept override;

 private:
  caf::actor_addr scheduler_;
};

/// True when responses of this model must be reordered: not decoupled, not
/// sequence batched (a sequence keeps its own order), and
/// dynamic_batching.preserve_ordering set. As in Triton, nothing else
/// reorders: several instances answer each request when it is done.
bool needs_ordering(const inference::ModelConfig& config);

/// True when idle instances of this model may run requests on the threads
/// that submit them (the direct lane): a request then waits in no queue, so
/// the model must neither batch (dynamic or sequence batching), nor stream
/// (decoupled), nor need its responses reordered.
bool lane_eligible(const inference::ModelConfig& config);

/// True when a request may be answered after its execute() returned: a
/// decoupled model's, and an ensemble's (its steps answer it).
bool answers_after_execute(const inference::ModelConfig& config);

/// Looks `job` up in `cache` (for version `version` of `model`): a hit
/// answers it from there and returns true; a miss has its final success
/// stored there and returns false. Both are counted in `stats`. A request
/// with inputs outside host memory is neither.
bool answer_from_cache(const std::shared_ptr<runtime::response_cache>& cache,
                       runtime::statistics::model_statistics& stats, const std::string& model,
                       int64_t version, const runtime::job_ptr& job);

/// One context per instance of the (normalised) configuration, named
/// "<group>_<index in group>" as Triton names them.
std::vector<runtime::backends::instance_context>
instance_contexts(const inference::ModelConfig& config);

} // namespace conch::actors
