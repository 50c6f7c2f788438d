#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "conch/actors/instances/worker_instance.hpp"
#include "conch/runtime/backends/backend.hpp"

namespace conch::actors {

/// Lends a model's idle instances to the threads that submit requests, so a
/// small request to a model that does not batch runs where it arrived
/// without the trip through the adapter, scheduler and instance actors and
/// back. An instance of a model that may block is lent with its worker
/// (worker_instance): the lessee posts the request there instead of running
/// it, so model code never runs on a submitting thread.
///
/// The scheduler stays the owner of every instance. It parks an idle instance
/// here only while its queue is empty, and asks for the parked ones back
/// (`want`) as soon as work queues up or the model drains. A submitting
/// thread leases a parked instance with one compare-and-swap, runs one
/// request on it and returns it; it never waits: with nothing parked the
/// request takes the actor path. Returning an instance while the scheduler
/// wants it hands it back to the scheduler (`release` says so, and the
/// caller tells the scheduler), so a drain waits for leases as it waits for
/// running batches.
///
/// Every slot is owned by the scheduler, parked, or leased:
///   owned  -> parked   park (scheduler)
///   parked -> owned    reclaim (scheduler), or release while wanted (lessee)
///   parked -> leased   try_lease (any thread)
///   leased -> parked   release (lessee)
///   leased -> owned    release of a crashed instance (lessee)
///
/// A lane whose instances run on workers of their own also keeps the jobs
/// that found every instance leased (`wait`): a lease there lasts a whole
/// model execution, so rather than sending such a job through the actor
/// path, the submitting thread leaves it here, and the lessee that ends its
/// lease next runs it on the same instance without giving the instance back
/// (inline_submit.hpp, serve_waiting). Under load a worker then goes from one
/// request to the next with no hand-off through the actors and no wake-up.
/// The waiting jobs are the scheduler's as soon as it wants its instances
/// back: `close_waiting` hands them over, and nothing waits until the lane
/// lends again.
class direct_lane {
 public:
  /// What running a parked instance takes; set by the scheduler while the
  /// slot is owned, read by the lessee while it holds the lease.
  struct binding {
    /// Keeps the model alive while one of its instances is leased.
    std::shared_ptr<runtime::backends::backend_model> model;
    std::shared_ptr<runtime::backends::backend_instance> instance;
    runtime::backends::instance_context context;
    /// Set for an instance that runs on a worker of its own: the request
    /// is posted there, never run on the lessee's thread.
    std::shared_ptr<worker_instance> worker;
  };

  /// A lane for `slots` instances, all owned by the scheduler and wanted.
  explicit direct_lane(size_t slots);

  // -- the scheduler (its own thread) ----------------------------------------

  /// Hands owned instance `index` to the lane with what running it takes.
  void park(size_t index, binding b);

  /// Takes instance `index` back if it is parked. False when it is leased:
  /// then its lessee hands it back on release, because the scheduler wants it.
  bool reclaim(size_t index);

  /// While wanted, nothing new is leased, and a lessee hands its instance
  /// back to the scheduler instead of parking it again.
  void want(bool wanted) noexcept;

  /// Forgets the binding of owned instance `index`.
  void unbind(size_t index);

  size_t size() const noexcept { return size_; }

  // -- submitting threads ----------------------------------------------------

  /// Leases a parked instance; nothing while the scheduler wants its
  /// instances or none is parked. Never waits: it looks `attempts` times.
  std::optional<size_t> try_lease(int attempts = 64) noexcept;

  /// What leased instance `index` runs with; valid until `release`.
  const binding& bound(size_t index) const noexcept { return bindings_[index]; }

  /// Ends the lease of `index`. True when the instance went back to the
  /// scheduler, which the caller must then tell (a credit): always for a
  /// crashed instance, which the scheduler replaces, and otherwise when the
  /// scheduler wants its instances.
  bool release(size_t index, bool crashed) noexcept;

  // -- waiting jobs (lanes of instances with workers of their own) ------------

  /// How many jobs may wait; one more takes the actor path.
  static constexpr size_t waiting_limit = 4096;

  /// Whether the lane keeps waiting jobs: its instances run on workers.
  bool keeps_waiting() const noexcept { return workers_.load(std::memory_order_relaxed); }

  /// Leaves `job` for the next lessee. False when the lane takes no waiting
  /// jobs now (its instances do not run on workers, the scheduler wants them
  /// back, or `waiting_limit` jobs wait): the job takes the actor path.
  bool wait(runtime::job_ptr job);

  /// Whether a job waits. A lessee ends its lease and then looks; a
  /// submitter leaves its job and then tries to lease: sequentially
  /// consistent on both sides, so a waiting job is never left behind while
  /// an instance is parked.
  bool has_waiting() const noexcept { return waiting_count_.load(std::memory_order_seq_cst) > 0; }

  /// The job that has waited longest, taken; null when none waits.
  runtime::job_ptr next_waiting();

  /// The waiting jobs, oldest first, taken; none waits from now until the
  /// lane lends again (`want(false)`). The scheduler calls it once it wants
  /// its instances back.
  std::vector<runtime::job_ptr> close_waiting();

  /// Who hears of the cancellation of a waiting job (set by the scheduler
  /// before it first lends; each waiting job is given it).
  void set_cancel_listener(std::shared_ptr<runtime::cancel_listener> listener);

  /// The waiting jobs that were cancelled, taken.
  std::vector<runtime::job_ptr> take_cancelled();

 private:
  enum : uint8_t { owned, parked, leased };

  size_t size_;
  std::unique_ptr<std::atomic<uint8_t>[]> states_;
  std::unique_ptr<binding[]> bindings_;
  std::atomic<bool> wanted_{true};
  std::atomic<size_t> hint_{0};
  std::atomic<bool> workers_{false};

  std::mutex waiting_mutex_;
  std::deque<runtime::job_ptr> waiting_;
  bool waiting_open_ = false;
  std::shared_ptr<runtime::cancel_listener> cancel_listener_;
  std::atomic<size_t> waiting_count_{0};
};

} // namespace conch::actors
