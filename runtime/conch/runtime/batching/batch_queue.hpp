#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/batching/batcher_config.hpp"
#include "conch/runtime/batching/job_queue.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/status.hpp"

namespace conch::runtime::batching {

/// The pending requests of one model version and the policy that turns them
/// into batches: priority levels, queue limits, queue timeouts, preferred batch
/// sizes and the batching delay, with Triton's dynamic-batcher semantics.
///
/// Pure logic: it reads no clock and starts no timer. Every call takes the
/// current time in now_ns() nanoseconds, which must never decrease from one
/// call to the next; `decision::wake_at_ns` tells the owner when to call
/// `next` again if nothing else happens. Not thread-safe: one owner (the model
/// scheduler) calls it.
class batch_queue final : public job_queue {
 public:
  using decision = job_queue::decision;


  // -- constructors ----------------------------------------------------------

  explicit batch_queue(batcher_config config);

  batch_queue(const batch_queue&) = delete;
  batch_queue& operator=(const batch_queue&) = delete;
  batch_queue(batch_queue&&) = default;
  batch_queue& operator=(batch_queue&&) = default;

  // -- queueing --------------------------------------------------------------

  /// Queues `job` at its priority level and stamps times().queue_start (when
  /// not stamped yet). Fails with UNAVAILABLE when the level holds
  /// max_queue_size jobs, and with INVALID_ARGUMENT when the job alone is
  /// larger than max_batch_size; the job is then not queued and not answered.
  /// O(log k) in the number of levels in use, which is O(1) in practice; no
  /// allocation beyond the deque's amortised growth.
  status enqueue(job_ptr job, uint64_t now_ns) override;

  /// Puts back at the head of its level a job taken out by `next` that never
  /// ran (its instance crashed before it came up), ahead of every job queued
  /// at that level, with no size limit and no queue timeout: it had its place
  /// and its wait already. Fails only
  /// as `enqueue` does for a job larger than max_batch_size.
  status return_to_front(job_ptr job, uint64_t now_ns) override;

  /// Applies queue timeouts and picks the next batch; called when an instance
  /// can take work. Cancelled jobs are left alone (see `take_cancelled`).
  decision next(uint64_t now_ns);
  decision next(uint64_t now_ns, size_t /*instance*/) override { return next(now_ns); }

  /// Applies queue timeouts without forming a batch, for a timer that fires
  /// while every instance is busy: returns the jobs that timed out under
  /// REJECT (fail them as for `decision::timed_out`) and moves those under
  /// DELAY behind the rest of their level.
  std::vector<job_ptr> take_expired(uint64_t now_ns) override;

  /// Removes and returns the jobs whose is_cancelled() is set.
  std::vector<job_ptr> take_cancelled() override;

  /// Removes and returns every job, highest priority first (stop, unload).
  std::vector<job_ptr> take_all() override;

  // -- properties ------------------------------------------------------------

  /// The number of queued jobs, delayed ones included.
  size_t size() const noexcept override { return size_; }

  /// The earliest queue deadline of a queued job; 0 when none has one.
  uint64_t next_deadline() const noexcept override;

  bool grows_batches() const noexcept override { return config_.dynamic; }

  /// The settings the queue was built from.
  const batcher_config& config() const noexcept { return config_; }

 private:
  // -- member types ----------------------------------------------------------

  /// One queued job with what scheduling needs to know about it.
  struct entry {
    job_ptr job;
    /// When the queue timeout passes; 0 for none.
    uint64_t deadline_ns = 0;
    /// When it was queued, for the batching delay.
    uint64_t enqueued_ns = 0;
    /// Its job_batch_size().
    size_t items = 1;
  };

  /// The jobs of one priority level.
  struct level {
    /// 1-based priority level; 0 is the only level when priorities are off.
    uint64_t number = 0;
    queue_policy policy;
    /// Jobs whose timeout has not passed, in arrival order.
    std::deque<entry> ready;
    /// Jobs that timed out under DELAY: served after `ready`.
    std::deque<entry> delayed;
    /// The number of entries in `ready` with a deadline.
    size_t timed = 0;

    size_t size() const noexcept { return ready.size() + delayed.size(); }
  };

  /// What a walk over the pending jobs found (see `scan`).
  struct scan_result;

  // -- helpers ---------------------------------------------------------------

  status place(job_ptr job, uint64_t now_ns, bool front);
  uint64_t level_number(uint64_t priority) const noexcept;
  level& level_for(uint64_t number);
  void expire(uint64_t now_ns, std::vector<job_ptr>& timed_out);
  void expire_level(level& lv, uint64_t now_ns, std::vector<job_ptr>& timed_out);
  void expire_entry(level& lv, entry&& e, std::vector<job_ptr>& timed_out);
  scan_result scan() const noexcept;
  size_t plan(uint64_t now_ns, uint64_t& wake_at_ns) const noexcept;
  void take_front(size_t count, backends::batch& out);
  uint64_t wake_after(uint64_t now_ns) const noexcept;
  uint64_t oldest_enqueued() const noexcept;
  bool is_preferred(size_t items) const noexcept;

  // -- member variables ------------------------------------------------------

  batcher_config config_;
  /// max(1, max_batch_size): the most batch items one batch may hold.
  size_t max_items_;
  /// The preferred sizes, sorted, unique, within 1..max_items_.
  std::vector<size_t> preferred_;
  /// The largest preferred size, or max_items_ when none is configured.
  size_t max_preferred_;
  /// max_queue_delay_us in nanoseconds.
  uint64_t delay_ns_;
  /// The levels used so far, sorted by number (highest priority first).
  std::vector<level> levels_;
  size_t size_ = 0;
  /// The number of queued entries with a deadline, over all levels.
  size_t timed_ = 0;
};

} // namespace conch::runtime::batching
