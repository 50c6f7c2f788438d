#pragma once

#include <cstddef>

#include "conch/actors/model_table.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::actors {

/// Requests whose inputs are larger than this always take the actor path:
/// the lane saves a few microseconds of hand-offs, which only matter for
/// small requests, and a large one would hold the submitting thread (an I/O
/// loop) for as long as the model takes to copy it.
inline constexpr size_t inline_input_limit = 64 * 1024;

/// Submits `job` on the calling thread when its model has a direct lane:
/// resolves and validates it as an adapter would, then runs it at once on a
/// leased instance, or, with none parked, sends it straight to the version's
/// scheduler. The job's callback may run before this returns. False, with
/// the job untouched, when the model has no lane, the version does not
/// resolve or the inputs exceed `inline_input_limit`: the caller then sends
/// it through an adapter.
bool submit_inline(const model_table& table, runtime::job_ptr& job);

} // namespace conch::actors
