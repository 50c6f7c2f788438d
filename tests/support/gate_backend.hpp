#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::tests {

/// A gate that executions of a gate backend wait at until the test opens it.
/// Lets a test hold requests inside a model deterministically, and see which
/// requests entered an execution, in what order and how many at once.
/// Thread-safe.
class gate {
 public:
  /// Opens the gate: waiting executions go on, later ones do not wait.
  void open() {
    std::lock_guard<std::mutex> guard{mu_};
    open_ = true;
    cv_.notify_all();
  }

  /// Waits until `n` executions have entered (and not necessarily left).
  bool wait_entered(size_t n, std::chrono::milliseconds timeout = std::chrono::seconds{10}) {
    std::unique_lock<std::mutex> lock{mu_};
    return cv_.wait_for(lock, timeout, [&] { return entered_ >= n; });
  }

  /// The most executions that were inside the backend at the same time.
  size_t max_concurrent() {
    std::lock_guard<std::mutex> guard{mu_};
    return max_inside_;
  }

  /// The request ids of every execution, in the order executions entered
  /// (one inner vector per execution: its batch).
  std::vector<std::vector<std::string>> batches() {
    std::lock_guard<std::mutex> guard{mu_};
    return batches_;
  }

  /// Called by the backend: records the batch and waits (at most `limit`)
  /// until the gate is open, or every job of the batch is cancelled.
  void pass(const runtime::backends::batch& jobs, std::chrono::milliseconds limit) {
    std::unique_lock<std::mutex> lock{mu_};
    std::vector<std::string> ids;
    for (const auto& j : jobs)
      ids.push_back(j->request().id);
    batches_.push_back(std::move(ids));
    ++entered_;
    ++inside_;
    max_inside_ = std::max(max_inside_, inside_);
    cv_.notify_all();
    auto all_cancelled = [&] {
      for (const auto& j : jobs)
        if (!j->is_cancelled())
          return false;
      return true;
    };
    // Cancellation is not signalled through the condition variable, so the
    // wait wakes up now and then to look at it.
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!open_ && !all_cancelled() && std::chrono::steady_clock::now() < deadline)
      cv_.wait_for(lock, std::chrono::milliseconds{2});
    --inside_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  size_t entered_ = 0;
  size_t inside_ = 0;
  size_t max_inside_ = 0;
  std::vector<std::vector<std::string>> batches_;
};

/// Registers backend `name`, which waits at `g` on every execution and then
/// answers each job with its inputs as outputs ("INPUTk" -> "OUTPUTk"), or
/// CANCELLED when the job was cancelled meanwhile. Its models are blocking,
/// so each instance runs on a thread of its own.
inline void register_gate_backend(const std::string& name, std::shared_ptr<gate> g,
                                  std::chrono::milliseconds limit = std::chrono::seconds{20}) {
  using namespace runtime;
  using namespace runtime::backends;

  class instance final : public backend_instance {
   public:
    instance(std::shared_ptr<gate> g, std::chrono::milliseconds limit)
      : gate_(std::move(g)), limit_(limit) {}
    void execute(batch& jobs) override {
      gate_->pass(jobs, limit_);
      for (auto& job : jobs) {
        if (job->is_cancelled()) {
          job->fail(cancelled("request cancelled"));
          continue;
        }
        inference_response r;
        for (const auto& in : job->request().inputs) {
          auto out = in;
          if (out.name.rfind("INPUT", 0) == 0)
            out.name = "OUTPUT" + out.name.substr(5);
          r.outputs.push_back(std::move(out));
        }
        r.final = true;
        job->respond(std::move(r));
      }
    }

   private:
    std::shared_ptr<gate> gate_;
    std::chrono::milliseconds limit_;
  };

  class model final : public backend_model {
   public:
    model(std::shared_ptr<gate> g, std::chrono::milliseconds limit)
      : gate_(std::move(g)), limit_(limit) {}
    result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) override {
      return std::unique_ptr<backend_instance>{std::make_unique<instance>(gate_, limit_)};
    }
    bool blocking() const noexcept override { return true; }

   private:
    std::shared_ptr<gate> gate_;
    std::chrono::milliseconds limit_;
  };

  registry::global().add(backend_entry{
    name,
    [g, limit](const model_context&) -> result<std::unique_ptr<backend_model>> {
      return std::unique_ptr<backend_model>{std::make_unique<model>(g, limit)};
    },
    nullptr});
}

/// The config.pbtxt of a gate model `name` on backend `backend`: FP32
/// INPUT0 -> OUTPUT0 with dims [4], then `extra`.
inline std::string gate_config(const std::string& name, const std::string& backend,
                               int max_batch_size, const std::string& extra = "") {
  return "name: \"" + name + "\"\nbackend: \"" + backend + "\"\nmax_batch_size: "
         + std::to_string(max_batch_size)
         + "\ninput [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n"
           "output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: [ 4 ] } ]\n"
         + extra + "\n";
}

} // namespace conch::tests
