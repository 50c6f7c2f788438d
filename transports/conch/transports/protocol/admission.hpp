#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "conch/runtime/statistics/connection_stats.hpp"

namespace conch::transports::protocol {

/// Counts the requests of one frontend that wait on the server, and refuses
/// new ones beyond a limit (DESIGN.md, "Backpressure"). Thread-safe.
class admission {
 public:
  /// Proof of admission: the request counts as in flight until the last
  /// copy of its ticket is gone.
  using ticket = std::shared_ptr<void>;

  /// `limit` requests at most in flight; 0 means no limit. Refusals are
  /// counted in `stats` where given.
  explicit admission(int64_t limit,
                     std::shared_ptr<runtime::statistics::connection_stats> stats = nullptr)
    : state_(std::make_shared<state>(limit)), stats_(std::move(stats)) {}

  /// A ticket, or null when `limit` requests are in flight already.
  ticket try_admit() const;

  /// The requests in flight now.
  int64_t in_flight() const noexcept { return state_->count.load(std::memory_order_acquire); }

 private:
  struct state {
    explicit state(int64_t l) : limit(l) {}
    const int64_t limit;
    std::atomic<int64_t> count{0};
  };

  // Shared with the tickets, so a ticket may outlive the admission.
  std::shared_ptr<state> state_;
  std::shared_ptr<runtime::statistics::connection_stats> stats_;
};

} // namespace conch::transports::protocol
