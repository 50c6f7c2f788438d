#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/inference_response.hpp"

namespace inference {
class ModelConfig;
} // namespace inference

namespace conch::runtime {

class inference_job;
class tensor_reshapes;

/// Observes the responses and the completion of jobs: statistics, metrics and
/// a frontend's in-flight count. Thread-safe: called from the thread that
/// completes the job.
class job_observer {
 public:
  virtual ~job_observer() = default;
  /// Called for each response before it reaches the client.
  virtual void on_response(const inference_job&, const inference_response&, uint64_t /*now*/) {}
  /// Called once per job with its final response: the model's observer just
  /// before the client hears of it, the frontend's just after.
  virtual void on_complete(const inference_job&, const status& outcome, uint64_t now) = 0;
};

/// Takes responses instead of the client when responses must be reordered
/// (see model_scheduler); it calls `deliver` later. Thread-safe.
class response_router {
 public:
  virtual ~response_router() = default;
  virtual void route(std::shared_ptr<inference_job> job, inference_response&& r) = 0;
};

/// Sees each response of a job as it was answered, on the answering thread
/// (the backend's, or the scheduler's for an error), before it goes anywhere
/// else; may change it. The sequence batcher takes a model's implicit state
/// out of its responses this way. Called under the job's answer lock, never
/// concurrently for one job.
class response_tap {
 public:
  virtual ~response_tap() = default;
  virtual void on_response(inference_response& r) = 0;
};

/// Why a request failed, as the failure metric's `reason` label counts it.
enum class failure_kind : uint8_t {
  /// The backend reported an error.
  backend,
  /// The scheduler refused it: queue full or queue timeout.
  rejected,
  /// It was cancelled.
  cancelled,
  /// Anything else (validation, server stopping, dropped).
  other,
};

/// Hears about cancellation of a job that waits in a queue. Thread-safe.
class cancel_listener {
 public:
  virtual ~cancel_listener() = default;
  virtual void on_cancel() noexcept = 0;
};

/// Timestamps of one job, in now_ns() nanoseconds; 0 when not reached.
/// Told once, on the answering thread, when a job sends its final response.
class completion_listener {
 public:
  virtual ~completion_listener() = default;
  virtual void on_completed() noexcept = 0;
};

struct job_times {
  uint64_t arrival = 0;
  uint64_t queue_start = 0;
  uint64_t exec_start = 0;
  uint64_t input_end = 0;
  uint64_t output_start = 0;
  uint64_t exec_end = 0;
  /// The compute phases in nanoseconds, where they were measured elsewhere
  /// and the statistics take them instead of the spans of the stamps above:
  /// an ensemble's are the sums of its steps', as in Triton.
  struct phases {
    uint64_t input = 0;
    uint64_t infer = 0;
    uint64_t output = 0;
  };
  std::optional<phases> summed;
};

/// The compute phases of `t`: `summed` where set, else the spans of its
/// stamps, with `end` for exec_end when that is unset; a missing middle
/// stamp moves its phase's time into the next phase, and an unset or
/// out-of-order pair spans nothing.
inline job_times::phases compute_phases(const job_times& t, uint64_t end) noexcept {
  if (t.summed)
    return *t.summed;
  auto span = [](uint64_t from, uint64_t to) { return from != 0 && to >= from ? to - from : 0; };
  if (t.exec_end != 0)
    end = t.exec_end;
  uint64_t infer_from = t.input_end != 0 ? t.input_end : t.exec_start;
  uint64_t infer_to = t.output_start != 0 ? t.output_start : end;
  return {span(t.exec_start, t.input_end), span(infer_from, infer_to), span(t.output_start, end)};
}

/// One request on its way through the server, with the callback that answers
/// it. The client is answered exactly once with a final response: if the job
/// is destroyed unanswered (an actor died, a queue was dropped), the destructor
/// answers UNAVAILABLE. Shared between the actors that handle it.
class inference_job : public std::enable_shared_from_this<inference_job> {
 public:
  // -- constructors ----------------------------------------------------------

  inference_job(inference_request request, response_callback callback);
  ~inference_job();

  inference_job(const inference_job&) = delete;
  inference_job& operator=(const inference_job&) = delete;

  // -- properties ------------------------------------------------------------

  inference_request& request() noexcept { return request_; }
  const inference_request& request() const noexcept { return request_; }
  job_times& times() noexcept { return times_; }
  const job_times& times() const noexcept { return times_; }

  /// The model version that serves the job, once resolved.
  int64_t resolved_version() const noexcept { return version_; }
  void resolve(int64_t version) noexcept { version_ = version; }
  /// Resolves the job to `version`, checked against `config`, its inputs
  /// given the backend's shapes by `input_reshapes` (null when none).
  /// Held, so that a later check can tell this very configuration from
  /// another of the same version number (a reload that raced).
  void accept(int64_t version, std::shared_ptr<const inference::ModelConfig> config,
              std::shared_ptr<const tensor_reshapes> input_reshapes) noexcept {
    version_ = version;
    accepted_config_ = std::move(config);
    accepted_reshapes_ = std::move(input_reshapes);
  }
  /// The configuration the job was accepted for; null before.
  const inference::ModelConfig* accepted_config() const noexcept { return accepted_config_.get(); }
  /// The input reshapes applied when it was accepted; null when none.
  const std::shared_ptr<const tensor_reshapes>& accepted_reshapes() const noexcept {
    return accepted_reshapes_;
  }
  /// The class labels of the serving model's outputs, passed on with each
  /// response that carries outputs.
  void set_labels(std::shared_ptr<const output_labels> labels) noexcept {
    labels_ = std::move(labels);
  }
  /// The reshapes of the serving model's outputs, applied to each response
  /// before it is delivered (tensor_reshape.hpp).
  void set_reshapes(std::shared_ptr<const tensor_reshapes> reshapes) noexcept {
    reshapes_ = std::move(reshapes);
  }

  /// Sets the tap that sees every response from now on (null: none). Set by
  /// the job's owner before it hands the job to an instance.
  void set_tap(std::shared_ptr<response_tap> tap) noexcept {
    // Under the answering lock: a rescheduled job's old tap goes while a
    // decoupled model's thread may still answer it.
    std::lock_guard<std::mutex> guard{answer_mu_};
    tap_.swap(tap);
  }
  const std::shared_ptr<response_tap>& tap() const noexcept { return tap_; }

  /// Position in the model's arrival order (for ordered delivery).
  uint64_t sequence() const noexcept { return sequence_; }
  void set_sequence(uint64_t s) noexcept { sequence_ = s; }

  /// The number of responses sent so far.
  uint32_t response_count() const noexcept { return responses_; }

  /// True once a final response was sent.
  bool completed() const noexcept { return completed_.load(std::memory_order_acquire); }

  /// True once a final response was given: sent, or handed to the job's
  /// router, which sends it later (held responses go out after the lease
  /// of their instance ends).
  bool answered() const noexcept {
    return completed() || routed_final_.load(std::memory_order_acquire);
  }

  // -- cancellation ----------------------------------------------------------

  /// Thread-safe. Backends check it between steps; queued jobs are answered
  /// CANCELLED by their scheduler.
  bool is_cancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }
  void cancel() noexcept;

  /// Names who to tell when the job is cancelled (its scheduler). Set once,
  /// by the owner of the job at that moment; later calls are ignored.
  void set_cancel_listener(std::shared_ptr<cancel_listener> l) noexcept;

  /// Names who else to tell: whoever carries the job's work on past its
  /// scheduler's queue (an ensemble's steps, requests of their own). Set
  /// once, by the backend that runs the job; later calls are ignored.
  void set_work_listener(std::shared_ptr<cancel_listener> l) noexcept;

  // -- completion ------------------------------------------------------------

  /// The final response carries the request's trace (inference_response::
  /// trace), for a network frontend that stamps its sending on it. Off for
  /// everyone else, who may keep a response long after the request ended.
  void hand_trace_back() noexcept { hand_trace_back_ = true; }

  /// Names who to tell when the job completes (a scheduler whose drain
  /// waits for a job answered after its execution returned). Returns false,
  /// keeping nothing, when the job has completed already, so a caller that
  /// got true is told exactly once. Set by the job's current owner; a later
  /// call replaces the listener.
  bool set_completion_listener(std::shared_ptr<completion_listener> l);

  // -- rescheduling (iterative sequences) --------------------------------------

  /// Asks the scheduler to run the job again in a later batch instead of
  /// taking it as finished when its batch ends (Triton's
  /// TRITONSERVER_REQUEST_RELEASE_RESCHEDULE). Called by the backend while
  /// it runs the job.
  void request_reschedule() noexcept { reschedule_.store(true, std::memory_order_release); }

  /// Whether the backend asked for that.
  bool reschedule_requested() const noexcept {
    return reschedule_.load(std::memory_order_acquire);
  }

  /// Whether the backend asked for that, clearing the request.
  bool take_reschedule() noexcept {
    return reschedule_.exchange(false, std::memory_order_acq_rel);
  }

  // -- answering after the execution -----------------------------------------

  /// Tells the scheduler that the backend answers this job after its
  /// execution returned, although the model is not decoupled (a python
  /// model that took the request's response sender). Without it a job a
  /// non-decoupled execution left unanswered fails when the execution ends.
  void answer_later() noexcept { answer_later_.store(true, std::memory_order_release); }
  bool answered_later() const noexcept { return answer_later_.load(std::memory_order_acquire); }

  // -- hooks -----------------------------------------------------------------

  /// Observers set by the frontend and by the model before the job moves on.
  void set_frontend_observer(std::shared_ptr<job_observer> o) noexcept { frontend_ = std::move(o); }
  void set_model_observer(std::shared_ptr<job_observer> o) noexcept { model_ = std::move(o); }
  void set_router(std::shared_ptr<response_router> r) noexcept { router_ = std::move(r); }
  /// Stops routing responses (the router is going away); only the job's
  /// current owner may call this.
  void clear_router() noexcept { router_.reset(); }

  // -- responding ------------------------------------------------------------

  /// Sends one response (through the router when one is set). Responses after
  /// the final one are dropped. One thread answers a job at a time; the one
  /// exception is abandon(), which may race with it.
  void respond(inference_response&& r);

  /// Sends a final error response, counted as `kind` in the failure metrics.
  void fail(status error, failure_kind kind = failure_kind::backend);

  /// Answers a job whose backend is being given up on (an exit timeout
  /// passed while it ran): cancels it and, unless it completed meanwhile,
  /// delivers a final `error` straight to the client, bypassing the router.
  /// Called by the job's owner while the backend's thread may still hold it;
  /// whichever final response comes first wins.
  void abandon(status error) noexcept;

  /// Why the job failed; meaningful once it completed with an error.
  failure_kind failure() const noexcept { return failure_; }

  /// Delivers a response to the client, bypassing the router. Called by the
  /// router, or by respond().
  void deliver(inference_response&& r);

 private:
  // respond() and fail(): `kind` (when not null) is recorded as the failure
  // under the same lock as the answer.
  void answer(inference_response&& r, const failure_kind* kind);
  void deliver_locked(inference_response&& r);

  inference_request request_;
  response_callback callback_;
  std::shared_ptr<job_observer> frontend_;
  std::shared_ptr<job_observer> model_;
  std::shared_ptr<response_router> router_;
  std::shared_ptr<cancel_listener> listener_;
  std::shared_ptr<const output_labels> labels_;
  std::shared_ptr<const tensor_reshapes> reshapes_;
  std::shared_ptr<const inference::ModelConfig> accepted_config_;
  std::shared_ptr<const tensor_reshapes> accepted_reshapes_;
  std::shared_ptr<response_tap> tap_;
  std::shared_ptr<cancel_listener> work_listener_;
  std::shared_ptr<completion_listener> completion_;
  // 0: no listener; 1: one is being stored; 2: stored (listener_set).
  std::atomic<uint8_t> listener_set_{0};
  std::atomic<uint8_t> work_listener_set_{0};
  job_times times_;
  int64_t version_ = -1;
  uint64_t sequence_ = 0;
  uint32_t responses_ = 0;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> reschedule_{false};
  std::atomic<bool> answer_later_{false};
  std::atomic<bool> completed_{false};
  std::atomic<bool> routed_final_{false};
  bool hand_trace_back_ = false;
  failure_kind failure_ = failure_kind::backend;
  // Held while a response is stamped and delivered. Uncontended but for
  // abandon(), which answers a job whose backend thread may still be
  // responding (a decoupled model streaming past the exit timeout); never
  // held across a router's route(), which may deliver at once.
  std::mutex answer_mu_;
};

using job_ptr = std::shared_ptr<inference_job>;

} // namespace conch::runtime
