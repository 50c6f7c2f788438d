#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/backends/ensemble/ensemble_graph.hpp"

namespace conch::runtime::backends::ensemble {

/// What every run of one ensemble version shares.
struct ensemble_plan {
  std::string name;
  ensemble_graph graph;
  std::shared_ptr<model_gateway> models;
  /// The ensemble is decoupled: it streams a response for each step
  /// response that writes ensemble outputs, then an empty final one.
  bool decoupled = false;
};

/// One request through an ensemble: a data flow over the plan's graph. Each
/// step is sent to its model (through the gateway) as soon as every tensor
/// it reads exists, so independent steps run at the same time. A response
/// of a step writes its tensors and starts the steps that read them (again
/// for each response of a decoupled step). The request is answered when no
/// step runs any more: with the ensemble's outputs, or with the first error
/// of a step, after which no step starts and the ones running are
/// cancelled. Cancelling the request cancels the steps running. Each step's
/// request carries the ensemble request's id, correlation id, flags,
/// priority, timeout and parameters.
///
/// Thread-safe: step responses arrive on the threads of the models, and a
/// step may run on the thread that sends it; no lock is held while a step
/// is sent or the request is answered.
class ensemble_run final : public cancel_listener,
                           public std::enable_shared_from_this<ensemble_run> {
 public:
  ensemble_run(std::shared_ptr<const ensemble_plan> plan, job_ptr job);

  /// Starts the steps that read only the ensemble's inputs. The run keeps
  /// itself alive until its request is answered.
  static void start(std::shared_ptr<const ensemble_plan> plan, job_ptr job);

  void on_cancel() noexcept override;

 private:
  struct tensor_value {
    bool set = false;
    /// Empty for an optional ensemble input the request left out.
    std::optional<tensor> value;
  };
  /// A response waiting to reach the client, in order.
  struct answer {
    std::vector<tensor> outputs;
    bool final = false;
    status error;
    failure_kind kind = failure_kind::backend;
  };
  using lock_type = std::unique_lock<std::mutex>;

  void begin();
  /// Makes the requests of the steps that `written` lets run, once each,
  /// and counts them in flight. Under mu_.
  std::vector<job_ptr> ready_steps(const std::vector<size_t>& written);
  job_ptr step_request(size_t step);
  void on_step_response(size_t step, inference_response&& r, const job_ptr& step_job);
  /// Adds the compute phases of a step that ran to the run's sums. Under mu_.
  void add_phases(const job_times& t);
  /// Sends the steps' requests; not under mu_ (a step may run inline).
  void send(std::vector<job_ptr>& steps);
  /// Stops starting steps, with `error` unless an earlier one stands, and
  /// returns the steps running, to be cancelled outside mu_.
  std::vector<job_ptr> stop(status error, failure_kind kind);
  /// True when `written` holds an ensemble output the client asked for.
  /// Under mu_.
  bool writes_wanted_output(const std::vector<size_t>& written) const;
  /// True when every ensemble output the client asked for has a value.
  /// Under mu_.
  bool wanted_outputs_set() const;
  /// The ensemble outputs the client asked for, under their ensemble names
  /// (copied into the client's allocator as they are delivered). Under mu_.
  std::vector<tensor> outputs_of() const;
  /// Queues the final answer once nothing runs. Under mu_.
  void maybe_finish();
  /// Delivers the queued answers, in order, from one thread at a time.
  void flush(lock_type& lock);

  std::shared_ptr<const ensemble_plan> plan_;
  job_ptr job_;
  std::mutex mu_;
  std::vector<tensor_value> values_;                // guarded by mu_
  std::vector<std::weak_ptr<inference_job>> running_;  // guarded by mu_
  size_t in_flight_ = 0;                           // guarded by mu_
  status error_;                                   // guarded by mu_
  failure_kind error_kind_ = failure_kind::backend; // guarded by mu_
  bool stopped_ = false;  // an error or a cancel: nothing starts; guarded by mu_
  bool finished_ = false; // the final answer is queued; guarded by mu_
  job_times::phases phases_;                       // guarded by mu_
  std::deque<answer> outbox_;                      // guarded by mu_
  bool delivering_ = false;                        // guarded by mu_
};

} // namespace conch::runtime::backends::ensemble
