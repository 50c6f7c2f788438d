#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "conch/runtime/batching/job_queue.hpp"
#include "conch/runtime/batching/sequence_config.hpp"

namespace conch::runtime::batching {

/// The sequence batcher of a model with `sequence_batching`, with Triton's
/// semantics. A sequence is the requests of one correlation id from a START
/// to an END; it holds a slot while it runs and waits in a FIFO backlog
/// while every slot is taken.
///
/// - direct: each instance has slots_per_instance slots and a sequence keeps
///   its slot, and so its instance and its row in the batch, for its
///   lifetime. A batch covers the instance's slots from 0 to the highest one
///   with a request; slots without one get a padding row (READY false, the
///   inputs of another row's shape, zeroed).
/// - oldest: candidates slots shared by every instance; a batch takes the
///   oldest front request of up to max(1, max_batch_size) sequences, sent at
///   a preferred size, when full, or when the oldest waited
///   max_queue_delay.
///
/// One request per sequence runs at a time, in arrival order. Each request
/// gets the control inputs the configuration names and the implicit states,
/// which a response tap takes back out of the model's outputs for the
/// sequence's next request. A sequence is released at its END request, when
/// idle for max_sequence_idle_microseconds, or when one of its requests is
/// cancelled (the rest are answered CANCELLED too). Sequences in the backlog
/// are not reaped; a backlog request's timeout ends its whole sequence.
///
/// With iterative_sequence each request is a sequence of its own (no flags
/// needed; one without a correlation id gets one): it takes a slot, runs
/// with START, and a request its backend reschedules keeps its slot and runs
/// again without START in a later batch, until its backend answers it,
/// which ends the sequence. END is never set, as Triton sends it only on
/// the release.
class sequence_queue final : public job_queue {
 public:
  explicit sequence_queue(sequence_config config);
  ~sequence_queue() override;

  status enqueue(job_ptr job, uint64_t now_ns) override;
  status return_to_front(job_ptr job, uint64_t now_ns) override;
  status reschedule(job_ptr job, uint64_t now_ns) override;
  decision next(uint64_t now_ns, size_t instance) override;
  void batch_done(size_t instance, uint64_t now_ns) override;
  std::vector<job_ptr> instance_down(size_t instance) override;
  void instance_up(size_t instance) override;
  void draining() override;
  std::vector<job_ptr> take_expired(uint64_t now_ns) override;
  std::vector<job_ptr> take_cancelled() override;
  std::vector<job_ptr> take_all() override;
  size_t size() const noexcept override { return size_; }
  uint64_t next_deadline() const noexcept override;
  bool any_instance() const noexcept override { return config_.oldest; }
  bool grows_batches() const noexcept override { return true; }
  status timeout_error() const override;

  /// Sequences holding a slot, and waiting for one.
  size_t active() const noexcept;
  size_t backlogged() const noexcept { return backlog_.size(); }

  const sequence_config& config() const noexcept { return config_; }

  struct sequence;
  using sequence_ptr = std::shared_ptr<sequence>;

 private:
  static constexpr size_t no_slot = static_cast<size_t>(-1);

  void bind_free_slot(const sequence_ptr& seq);
  void release_slot(size_t slot);
  void unmap(const sequence_ptr& seq);
  /// Adds the control and state inputs to a job taken for a batch.
  void prepare(const job_ptr& job, const sequence_ptr& seq);
  job_ptr padding_like(const inference_job& representative) const;
  /// Takes `seq`'s front job for a batch of `instance`, prepared.
  job_ptr take_front(const sequence_ptr& seq, size_t instance);
  decision next_direct(uint64_t now_ns, size_t instance);
  decision next_oldest(uint64_t now_ns, size_t instance);
  /// Moves `seq`'s queued jobs to `out` and ends it.
  void end_sequence(const sequence_ptr& seq, std::vector<job_ptr>& out);

  sequence_config config_;
  std::map<correlation_id, sequence_ptr> by_id_;
  std::vector<sequence_ptr> slots_;
  std::deque<sequence_ptr> backlog_;
  /// Set by draining(): from then on a sequence that waits for its next
  /// request gives its slot up as soon as it does.
  bool draining_ = false;
  /// The sequences of each instance's batch in flight.
  std::vector<std::vector<sequence_ptr>> running_;
  /// Direct: whether each instance is up (its slots take sequences).
  std::vector<bool> up_;
  /// The state specifications, shared with the taps.
  std::shared_ptr<const std::vector<sequence_state_spec>> states_;
  size_t size_ = 0;
  /// The correlation ids given to iterative requests that came without one.
  uint64_t iterative_ids_ = 0;
};

} // namespace conch::runtime::batching
