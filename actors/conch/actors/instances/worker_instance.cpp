#include "conch/actors/instances/worker_instance.hpp"

#include <utility>

namespace conch::actors {

worker_instance::worker_instance(std::weak_ptr<runtime::backends::backend_instance> instance,
                                 std::weak_ptr<services::worker_thread> worker,
                                 runtime::backends::instance_context context)
  : instance_(std::move(instance)), worker_(std::move(worker)), context_(std::move(context)) {}

bool worker_instance::post(runtime::job_ptr job, run_fn run, done_fn done) {
  // The task holds this object: the scheduler may let go of it meanwhile.
  auto task = [self = shared_from_this(), job, run = std::move(run), done = std::move(done)] {
    bool healthy = true;
    {
      // Locked on the worker, where the owner also lets go of the instance,
      // so its last reference is never dropped on another thread.
      auto instance = self->instance_.lock();
      healthy = run(instance.get());
    }
    {
      // Forgotten before the lease ends: an abort from then on finds this
      // instance idle rather than giving up on a worker that returned.
      std::lock_guard<std::mutex> guard{self->mutex_};
      if (self->posted_ == job)
        self->posted_.reset();
    }
    done(healthy);
  };
  // Posted under the lock, so close() either comes first and refuses the
  // job, or comes after and finds it posted (and gives up on it).
  std::lock_guard<std::mutex> guard{mutex_};
  if (closed_)
    return false;
  auto worker = worker_.lock();
  if (!worker)
    return false;
  posted_ = job;
  if (worker->post(std::move(task)))
    return true;
  posted_.reset();
  return false;
}

void worker_instance::close() {
  std::lock_guard<std::mutex> guard{mutex_};
  closed_ = true;
}

runtime::job_ptr worker_instance::take_posted() {
  std::lock_guard<std::mutex> guard{mutex_};
  return std::exchange(posted_, nullptr);
}

bool worker_instance::busy() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return posted_ != nullptr;
}

void worker_instance::execute(runtime::backends::batch& jobs) {
  if (auto instance = instance_.lock())
    instance->execute(jobs);
  else
    for (auto& job : jobs)
      job->fail(runtime::unavailable("instance '" + context_.name + "' is not available"));
}

void worker_instance::interrupt() noexcept {
  if (auto instance = instance_.lock())
    instance->interrupt();
}

std::shared_ptr<runtime::backends::readiness_probe> worker_instance::readiness() const {
  auto instance = instance_.lock();
  return instance ? instance->readiness() : nullptr;
}

} // namespace conch::actors
