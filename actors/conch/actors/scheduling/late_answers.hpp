#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include <caf/actor_addr.hpp>

#include "conch/runtime/inference_job.hpp"

namespace conch::actors {

/// Wakes a draining scheduler when a job its drain waits for completes
/// (late_answers). Armed right before the scheduler looks at those jobs,
/// the first completion after that sends it one drain_atom, so serving
/// costs no message and a drain never polls. Holds only the scheduler's
/// address. Any thread.
class scheduler_drain_waker final : public runtime::completion_listener {
 public:
  explicit scheduler_drain_waker(caf::actor_addr scheduler) : scheduler_(std::move(scheduler)) {}

  /// The scheduler is about to look at the jobs it waits for: the next job
  /// that completes wakes it. One that completed before is seen by that
  /// look, as it set its completed flag before it took this lock.
  void arm();

  void on_completed() noexcept override;

 private:
  caf::actor_addr scheduler_;
  std::mutex mu_;
  bool armed_ = false;
};

/// The jobs a scheduler's drain waits for after their execution returned:
/// a decoupled model's (or an ensemble's), and a python model's that kept
/// its response sender. Nothing but their final response says they are
/// done, so each tells the scheduler then (scheduler_drain_waker). The
/// scheduler's own part; used on its thread only.
class late_answers {
 public:
  explicit late_answers(caf::actor_addr scheduler);

  /// Waits for `job`, unless it has completed already.
  void expect(const runtime::job_ptr& job);

  /// Whether any is still unanswered. Arms the waker first: one that
  /// completes after this look wakes the scheduler with drain_atom.
  bool pending();

  /// Cancels every one still unanswered and forgets them all (an abort:
  /// the drain waits for them no more).
  void cancel_all();

 private:
  /// Forgets the jobs that completed.
  void prune();

  std::shared_ptr<scheduler_drain_waker> waker_;
  std::vector<std::weak_ptr<runtime::inference_job>> jobs_;
};

} // namespace conch::actors
