#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "conch/services/worker_thread.hpp"
#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::actors {

/// The instance of a blocking_instance as its scheduler lends it to the
/// direct lane. A lessee does not run it on its own thread: it posts the
/// request to the instance's worker, so model code that may block still runs
/// only there, while the request skips the adapter, scheduler and instance
/// actors on its way in and out (one hand-off each way).
///
/// It refers to the backend instance and the worker without owning them:
/// the blocking_instance stays their owner and finalizes the instance on its
/// worker (a lessee holds the worker only while it posts). It remembers the
/// job it has posted until the job returns, so an
/// instance that gives up on its worker (the exit timeout) answers that job
/// too.
class worker_instance final : public runtime::backends::backend_instance,
                              public std::enable_shared_from_this<worker_instance> {
 public:
  /// What a posted job runs on the worker, with the backend instance (null
  /// once it was finalized); false when the backend threw.
  using run_fn = std::function<bool(runtime::backends::backend_instance*)>;
  /// What runs on the worker once the job is no longer this instance's, with
  /// what `run` answered: ending the lease, delivering the answers.
  using done_fn = std::function<void(bool healthy)>;

  worker_instance(std::weak_ptr<runtime::backends::backend_instance> instance,
                  std::weak_ptr<services::worker_thread> worker,
                  runtime::backends::instance_context context);

  /// Queues `run` for `job` on the worker, then `done`. False when the
  /// worker takes no more tasks or the instance was closed; nothing was
  /// queued then.
  bool post(runtime::job_ptr job, run_fn run, done_fn done);

  /// Takes no more posts: the instance gives up on its worker (the exit
  /// timeout) or ends. Thread-safe, idempotent.
  void close();

  /// The job posted and not returned yet, taken: its instance gives up on it.
  runtime::job_ptr take_posted();

  /// Whether a posted job has not returned yet.
  bool busy() const;

  const runtime::backends::instance_context& context() const noexcept { return context_; }

  /// Runs `jobs` on the calling thread: what a lessee that may block would do.
  void execute(runtime::backends::batch& jobs) override;
  void interrupt() noexcept override;
  std::shared_ptr<runtime::backends::readiness_probe> readiness() const override;

 private:
  std::weak_ptr<runtime::backends::backend_instance> instance_;
  std::weak_ptr<services::worker_thread> worker_;
  runtime::backends::instance_context context_;
  mutable std::mutex mutex_;
  runtime::job_ptr posted_;
  bool closed_ = false;
};

} // namespace conch::actors
