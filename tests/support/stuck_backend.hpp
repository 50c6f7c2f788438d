#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::tests {

/// Where the executions of a stuck backend wait, deaf to cancellation, until
/// the test releases them: model code that does not return (a deadlock, a
/// hung device call). Thread-safe.
class stuck_latch {
 public:
  /// Lets every waiting execution, and every later one, return.
  void release() {
    std::lock_guard<std::mutex> guard{mu_};
    released_ = true;
    cv_.notify_all();
  }

  /// Waits until `n` executions have entered.
  bool wait_entered(size_t n, std::chrono::milliseconds timeout = std::chrono::seconds{10}) {
    std::unique_lock<std::mutex> lock{mu_};
    return cv_.wait_for(lock, timeout, [&] { return entered_ >= n; });
  }

  /// Called by the backend: waits until released, whatever happens to the jobs.
  void hold() {
    std::unique_lock<std::mutex> lock{mu_};
    ++entered_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return released_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  size_t entered_ = 0;
};

/// Where a stuck backend holds: in every execution, or in finalizing each
/// instance (its destructor) while executions answer at once.
enum class stuck_in { execute, finalize };

/// Registers backend `name`: blocking; holds at `latch` where `where` says,
/// and answers its jobs with an empty success.
inline void register_stuck_backend(const std::string& name, std::shared_ptr<stuck_latch> latch,
                                   stuck_in where = stuck_in::execute) {
  using namespace runtime;
  using namespace runtime::backends;

  class instance final : public backend_instance {
   public:
    instance(std::shared_ptr<stuck_latch> l, stuck_in where)
      : latch_(std::move(l)), where_(where) {}
    ~instance() override {
      if (where_ == stuck_in::finalize)
        latch_->hold();
    }
    void execute(batch& jobs) override {
      if (where_ == stuck_in::execute)
        latch_->hold();
      for (auto& job : jobs) {
        inference_response r;
        r.final = true;
        job->respond(std::move(r));
      }
    }

   private:
    std::shared_ptr<stuck_latch> latch_;
    stuck_in where_;
  };

  class model final : public backend_model {
   public:
    model(std::shared_ptr<stuck_latch> l, stuck_in where) : latch_(std::move(l)), where_(where) {}
    result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) override {
      return std::unique_ptr<backend_instance>{std::make_unique<instance>(latch_, where_)};
    }
    bool blocking() const noexcept override { return true; }

   private:
    std::shared_ptr<stuck_latch> latch_;
    stuck_in where_;
  };

  registry::global().add(backend_entry{
    name,
    [latch, where](const model_context&) -> result<std::unique_ptr<backend_model>> {
      return std::unique_ptr<backend_model>{std::make_unique<model>(latch, where)};
    },
    nullptr});
}

} // namespace conch::tests
