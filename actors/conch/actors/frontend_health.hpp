#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

#include <caf/allowed_unsafe_message_type.hpp>

#include "conch/actors/frontend_transport.hpp"
#include "conch/runtime/result.hpp"

namespace conch::actors {

/// What a frontend supervisor tells the public frontend object about its
/// transport: how often it was restarted after a failure, and whether it
/// failed past its restart budget. Thread-safe.
class frontend_health {
 public:
  /// Counts one restart.
  void note_restart() noexcept { restarts_.fetch_add(1, std::memory_order_relaxed); }

  /// Restarts so far.
  size_t restarts() const noexcept { return restarts_.load(std::memory_order_relaxed); }

  /// Records that the transport failed for good, and why.
  void set_failed(runtime::status why) {
    std::lock_guard<std::mutex> guard{mu_};
    failure_ = std::move(why);
    failed_.store(true, std::memory_order_release);
  }

  /// True once the transport failed past its budget.
  bool failed() const noexcept { return failed_.load(std::memory_order_acquire); }

  /// Why it failed; OK while it has not.
  runtime::status failure() const {
    std::lock_guard<std::mutex> guard{mu_};
    return failure_;
  }

 private:
  std::atomic<size_t> restarts_{0};
  std::atomic<bool> failed_{false};
  mutable std::mutex mu_;
  runtime::status failure_;  // guarded by mu_
};

/// How a frontend supervisor replaces a transport that failed while
/// serving (frontend_transport::set_failure_handler).
struct frontend_restart {
  /// Makes a fresh transport for the address and port of `failed`, which
  /// has stopped; empty: a failure is final.
  std::function<runtime::result<frontend_transport_ptr>(const frontend_transport& failed)> make;
  /// Restarts allowed before the frontend is reported failed.
  size_t budget = 0;
  /// Where the supervisor reports restarts and the final failure; may be null.
  std::shared_ptr<frontend_health> health;
};

using frontend_restart_ptr = std::shared_ptr<const frontend_restart>;

} // namespace conch::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::frontend_restart_ptr)
