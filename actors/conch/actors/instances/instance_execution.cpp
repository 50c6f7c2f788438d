#include "conch/actors/instances/instance_execution.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <exception>

#include "conch/runtime/batching/job_batch_size.hpp"
#include "conch/runtime/clock.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

namespace {

void fail_all(runtime::backends::batch& jobs, const std::string& message) {
  CONCH_LOG_ERROR << message;
  for (auto& job : jobs)
    job->fail(runtime::internal_error(message));
}

} // namespace

bool execute_batch(const instance_runner& runner, runtime::backends::batch& jobs) {
  const auto& name = runner.context.name;
  auto start = runtime::now_ns();
  size_t batch_size = 0;
  for (auto& job : jobs) {
    job->times().exec_start = start;
    batch_size += runtime::batching::job_batch_size(*job, runner.max_batch_size);
  }
  runner.stats.count_execution(batch_size);
  CONCH_LOG_VERBOSE(1) << "instance '" << name << "' executing " << jobs.size()
                       << " request(s), batch size " << batch_size;
  bool healthy = true;
  try {
    runner.instance.execute(jobs);
  } catch (abi::__forced_unwind&) {
    throw; // the interpreter ends this thread at exit
  } catch (const std::exception& e) {
    healthy = false;
    fail_all(jobs, "instance '" + name + "' failed: " + e.what());
  } catch (...) {
    healthy = false;
    fail_all(jobs, "instance '" + name + "' failed");
  }
  auto end = runtime::now_ns();
  uint64_t input_end = 0;
  uint64_t output_start = 0;
  for (auto& job : jobs) {
    // exec_end is stamped by the job's final response (inference_job::respond),
    // which may already be on its way to another thread.
    const auto& t = job->times();
    input_end = std::max(input_end, t.input_end);
    output_start = std::max(output_start, t.output_start);
    // A job its backend rescheduled runs again; its scheduler queues it.
    if (!runner.decoupled && !job->answered() && !job->reschedule_requested()
        && !job->answered_later())
      job->fail(runtime::internal_error("model instance '" + name
                                        + "' returned without answering a request"));
  }
  runner.stats.record_execution_times(batch_size, start, input_end ? input_end : start,
                                      output_start ? output_start : end, end);
  return healthy;
}

bool execute_uncancelled(const instance_runner& runner, const runtime::backends::batch& jobs) {
  runtime::backends::batch live;
  live.reserve(jobs.size());
  for (const auto& job : jobs) {
    if (job->completed())
      continue; // answered by the scheduler meanwhile
    if (job->is_cancelled())
      job->fail(runtime::cancelled("request cancelled"), runtime::failure_kind::cancelled);
    else
      live.push_back(job);
  }
  return live.empty() || execute_batch(runner, live);
}

} // namespace conch::actors
