#pragma once

#include <cstddef>

#include "conch/actors/repository/model_table.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::actors {

/// Requests whose inputs are larger than this always take the actor path:
/// the lane saves a few microseconds of hand-offs, which only matter for
/// small requests, and a large one would hold the submitting thread (an I/O
/// loop) for as long as the model takes to copy it.
inline constexpr size_t inline_input_limit = 64 * 1024;

/// Runs `job` on the calling thread when `version`, the one it resolved
/// to, has a direct lane with a parked instance: validates it as an adapter
/// would, then runs it on the leased instance. The job's callback runs
/// before this returns (after the callback it was submitted from, when
/// submitted from one), except for a model that may block: its instance
/// runs the job on its own worker, where the callback runs later.
/// An invalid request is answered here. False when the version has no
/// lane, the inputs exceed `inline_input_limit` or no instance could be
/// leased: the caller then sends the job through an adapter, which resolves
/// it against the model table the repository keeps in step with its
/// schedulers (a reload never strands a job there).
bool submit_inline(const version_entry& version, runtime::job_ptr& job);

} // namespace conch::actors
