#pragma once

#include <cstdint>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/statistics/model_statistics.hpp"

namespace conch::actors {

/// How one instance runs its batches, wherever it runs them.
struct instance_runner {
  runtime::backends::backend_instance& instance;
  const runtime::backends::instance_context& context;
  runtime::statistics::model_statistics& stats;
  bool decoupled = false;
  int32_t max_batch_size = 0;
};

/// Runs `jobs` on an instance: stamps execution times, counts the execution,
/// turns an exception of the backend into failed jobs, fails the jobs a
/// non-decoupled backend left unanswered, and records the batch's times.
/// Returns false when the backend threw: the instance must be replaced.
bool execute_batch(const instance_runner& runner, runtime::backends::batch& jobs);

/// Runs a batch that was handed on while another ran: it waited on its
/// instance rather than in the scheduler's queue, where a cancelled request
/// is answered at once, so the ones cancelled meanwhile are answered now
/// (unless the scheduler did) and the rest run (execute_batch). The
/// scheduler still reads the batch it handed on, so the rest is a copy.
bool execute_uncancelled(const instance_runner& runner, const runtime::backends::batch& jobs);

} // namespace conch::actors
