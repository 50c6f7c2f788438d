#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "conch/actors/server.hpp"
#include "conch/python/gil.hpp"
#include "conch/runtime/inference_response.hpp"

namespace conch::python {

/// The responses of one request on their way to Python. Thread-safe.
///
/// Without a callable (pull mode) Conch threads push and a Python thread takes
/// responses with `pop`, waiting with the GIL released. With a callable (push
/// mode) each response is handed to it as a _conch.Response by the delivery
/// thread (py_delivery), in order, and nothing is stored. Either way no
/// thread of Conch's ever needs the GIL. Held by a shared_ptr.
class response_queue : public std::enable_shared_from_this<response_queue> {
 public:
  /// A queue in pull mode when `on_response` is empty, else in push mode.
  explicit response_queue(py_ref on_response)
    : push_mode_(static_cast<bool>(on_response)), on_response_(std::move(on_response)) {}

  /// Takes one response; called by Conch for each response of the request.
  void push(runtime::inference_response&& r) noexcept;

  /// Push mode: calls the callable with `r`. Requires the GIL; called by the
  /// delivery thread only.
  void deliver(runtime::inference_response&& r);

  /// The outcome of a wait.
  enum class wait_result { ok, timeout, busy };

  /// Waits up to `timeout` for a response and moves it into `out`. Returns
  /// busy when another thread is waiting already. Must be called without the
  /// GIL. On a machine with more than one hardware thread it first spins for
  /// up to `spin_budget`, as long as this thread's recent spins paid off: a
  /// response that comes within it costs no sleep and no wake-up, which is
  /// most of an in-process round trip otherwise.
  wait_result pop(std::chrono::nanoseconds timeout, std::optional<runtime::inference_response>& out);

  static constexpr std::chrono::microseconds spin_budget{50};

  /// Pull mode: spins up to `spin_budget` for the first response, as pop
  /// would, under the same credit. For the submitting thread while it is
  /// still without the GIL: a model's worker that answers meanwhile then
  /// never waits for the GIL behind it, and no thread sleeps.
  void spin_for_response() noexcept;

  /// Takes a response if one is there.
  std::optional<runtime::inference_response> try_pop();

  /// True once the final response was pushed.
  bool final_seen() const;

  /// Keeps the request's handle until the final response, so that cancel()
  /// reaches it. The handle shares the request's job, and a job kept past
  /// its end keeps parts of the server alive (its in-process frontend), so
  /// the queue lets go of it with the final response.
  void set_handle(actors::request_handle handle);

  /// Cancels the request; a no-op once it completed.
  void cancel();

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<runtime::inference_response> items_;
  /// !items_.empty(), readable without the lock while spinning.
  std::atomic<bool> has_items_{false};
  bool waiting_ = false;
  bool final_ = false;
  std::optional<actors::request_handle> handle_;
  const bool push_mode_;
  py_ref on_response_;  // touched with the GIL only
};

} // namespace conch::python
