#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/status.hpp"

namespace conch::runtime::batching {

/// The pending requests of one model version and the policy that turns them
/// into batches, as its scheduler sees them: the dynamic batcher
/// (batch_queue) or the sequence batcher (sequence_queue).
///
/// Pure logic: it reads no clock and starts no timer. Every call takes the
/// current time in now_ns() nanoseconds, which must never decrease from one
/// call to the next. Not thread-safe: one owner (the model scheduler) calls
/// it.
class job_queue {
 public:
  /// What `next` decided.
  struct decision {
    /// The batch to run now, in the order the instance must see it; empty
    /// when the queue waits for more work or has none for the instance.
    backends::batch jobs;
    /// How many of `jobs` are padding rows the queue made (the sequence
    /// batcher's direct strategy), not requests of its own.
    size_t padding = 0;
    /// Jobs whose queue timeout passed under a REJECT policy. They left the
    /// queue; the caller fails them with `timeout_error()`.
    std::vector<job_ptr> timed_out;
    /// When `next` should run again if no job arrives before (a batching
    /// delay ends or a queue timeout passes); 0 when time alone changes
    /// nothing. Independently of it, while the queue is not empty, `next`
    /// may have a batch for every instance that becomes free.
    uint64_t wake_at_ns = 0;
  };

  virtual ~job_queue() = default;

  /// Queues `job`; on an error the job is neither queued nor answered.
  virtual status enqueue(job_ptr job, uint64_t now_ns) = 0;

  /// Puts back at the head of the queue a job taken out by `next` that never
  /// ran (its instance crashed before it came up).
  virtual status return_to_front(job_ptr job, uint64_t now_ns) = 0;

  /// Queues again a job whose backend asked to run it in a later batch (an
  /// iterative sequence's request); only a queue of such sequences takes it.
  virtual status reschedule(job_ptr /*job*/, uint64_t /*now_ns*/) {
    return unsupported("Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, "
                       "which needs sequence_batching with iterative_sequence");
  }

  /// The next batch for instance `instance`, which is idle.
  virtual decision next(uint64_t now_ns, size_t instance) = 0;

  /// Instance `instance` finished (or lost) the batch `next` gave it last.
  virtual void batch_done(size_t /*instance*/, uint64_t /*now_ns*/) {}

  /// Instance `instance` went down: the jobs returned are bound to it and
  /// end with it (fail them); nothing is bound to it until `instance_up`.
  virtual std::vector<job_ptr> instance_down(size_t /*instance*/) { return {}; }

  /// Instance `instance` is (back) up.
  virtual void instance_up(size_t /*instance*/) {}

  /// The scheduler drains: no new request will come, so what only waits for
  /// one may go (the sequence batcher frees the slots of idle sequences).
  virtual void draining() {}

  /// Applies queue timeouts (and whatever else time ends) without forming a
  /// batch; returns the jobs to fail with `timeout_error()`.
  virtual std::vector<job_ptr> take_expired(uint64_t now_ns) = 0;

  /// Removes and returns the jobs to answer CANCELLED: those whose
  /// is_cancelled() is set, and any others their cancellation ends.
  virtual std::vector<job_ptr> take_cancelled() = 0;

  /// Removes and returns every job (stop, unload).
  virtual std::vector<job_ptr> take_all() = 0;

  /// The number of queued jobs.
  virtual size_t size() const noexcept = 0;
  bool empty() const noexcept { return size() == 0; }

  /// The earliest moment `take_expired` would do something; 0 when none.
  virtual uint64_t next_deadline() const noexcept = 0;

  /// True when a batch `next` forms for one instance could as well have gone
  /// to another: an empty `next` then means there is none for any.
  virtual bool any_instance() const noexcept { return true; }

  /// True when batches grow while the queue waits (dynamic batching).
  virtual bool grows_batches() const noexcept = 0;

  /// What a job that `take_expired` returned is answered.
  virtual status timeout_error() const { return unavailable("Request timeout expired"); }
};

} // namespace conch::runtime::batching
