#pragma once

// _conch.BackendRequest: one request of a batch, as a backend written in
// Python sees it (python/conch/_backend/). It reads the request and answers
// it; the answers go back through the core as any backend's would.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "conch/runtime/inference_job.hpp"

namespace conch::python::backends {

/// What every request of one model version shares.
struct model_facts {
  std::string name;
  int64_t version = 0;
  bool decoupled = false;
  /// sequence_batching.iterative_sequence: requests may be rescheduled.
  bool iterative = false;
  /// The outputs of the configuration, in order.
  std::vector<std::string> outputs;
  /// Requests of this version whose final response has not gone out: while
  /// there are any, the stop drains them and their BLS calls go through.
  mutable std::atomic<int64_t> open_requests{0};
};

/// Thread-safe: a decoupled model may answer from threads of its own.
class backend_request {
 public:
  backend_request(runtime::job_ptr job, std::shared_ptr<const model_facts> facts) noexcept
    : job_(std::move(job)), facts_(std::move(facts)) {
    facts_->open_requests.fetch_add(1, std::memory_order_relaxed);
  }
  ~backend_request();
  backend_request(const backend_request&) = delete;
  backend_request& operator=(const backend_request&) = delete;

  // -- reading ---------------------------------------------------------------

  const runtime::inference_request& request() const noexcept { return job_->request(); }
  const model_facts& facts() const noexcept { return *facts_; }
  bool is_cancelled() const noexcept { return job_->is_cancelled(); }

  /// The outputs the client asked for, or every output when it named none.
  std::vector<std::string> requested_output_names() const;

  // -- answering -------------------------------------------------------------

  /// Sends a response with `outputs` (tensor tuples, see tensor_tuples.hpp),
  /// leaving out those the client did not ask for. Raises
  /// InvalidArgumentError for a malformed output and UnsupportedError once
  /// the final response went out. Requires the GIL; releases it while the
  /// response is delivered.
  void respond(pybind11::handle outputs, bool final, pybind11::handle parameters);

  /// Sends a final error response. Raises UnsupportedError once the final
  /// response went out. Requires the GIL; releases it while delivering.
  void fail(const std::string& message, runtime::errc code);

  /// Fails the request with `message` unless its final response went out;
  /// used for whatever a backend left unanswered. Needs no GIL.
  void fail_unless_answered(const std::string& message) noexcept;

  bool final_sent() const;

  /// Marks the request's response sender as taken by the model: a model
  /// that is not decoupled may then answer after its execute() returned.
  void take_sender() noexcept {
    sender_taken_.store(true, std::memory_order_relaxed);
    job_->answer_later();
  }
  bool sender_taken() const noexcept { return sender_taken_.load(std::memory_order_relaxed); }

  /// Triton's release flags: with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE
  /// (2) the request runs again in a later batch instead of being finished
  /// by this one; only a model with iterative sequences takes that
  /// (UnsupportedError otherwise, with Triton's text).
  void set_release_flags(uint32_t flags);
  bool rescheduled() const noexcept { return rescheduled_; }

  /// Marks the execute() that got this request as returned: rescheduling
  /// is only possible before (the scheduler reads it when the batch ends).
  void execute_returned() noexcept;

  /// While deferring, responses are kept instead of delivered; `flush`
  /// delivers them. A backend's own thread defers while it holds the GIL,
  /// so that the client, woken by the response, finds the GIL free.
  void defer(bool on) noexcept;
  void flush() noexcept;

 private:
  /// Delivers `r` unless the final response went out; false when it had.
  bool deliver(runtime::inference_response&& r, runtime::failure_kind* failure);

  runtime::job_ptr job_;
  std::shared_ptr<const model_facts> facts_;
  mutable std::mutex mu_;
  bool final_sent_ = false;
  bool rescheduled_ = false;
  bool execute_returned_ = false;
  bool deferring_ = false;
  std::atomic<bool> sender_taken_{false};
  std::vector<runtime::inference_response> deferred_;
};

using backend_request_ptr = std::shared_ptr<backend_request>;

/// Binds _conch.BackendRequest.
void bind_backend_request(pybind11::module_& m);

} // namespace conch::python::backends
