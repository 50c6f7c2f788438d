#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "conch/runtime/statistics/connection_stats.hpp"

namespace conch::transports::protocol {

/// Counts the requests of one frontend that wait on the server, and refuses
/// new ones beyond a limit (DESIGN.md, "Backpressure"). Thread-safe.
class admission {
  struct state;

 public:
  /// Proof of admission: the request counts as in flight until the last
  /// copy of its ticket is gone.
  using ticket = std::shared_ptr<void>;

  /// One request's place among those in flight, given back when the place
  /// is destroyed; move-only. Empty when none was taken. A caller that
  /// holds it beside other things of the request (a byte budget's share)
  /// puts them all in one shared object: one allocation per request.
  class place {
   public:
    place() noexcept = default;
    place(place&& other) noexcept : state_(std::move(other.state_)) {}
    place& operator=(place&& other) noexcept {
      if (this != &other) {
        give_back();
        state_ = std::move(other.state_);
      }
      return *this;
    }
    place(const place&) = delete;
    place& operator=(const place&) = delete;
    ~place() { give_back(); }

    explicit operator bool() const noexcept { return state_ != nullptr; }

   private:
    friend class admission;
    explicit place(std::shared_ptr<state> s) noexcept : state_(std::move(s)) {}
    void give_back() noexcept;

    // Shared with the admission, so a place may outlive it.
    std::shared_ptr<state> state_;
  };

  /// `limit` requests at most in flight; 0 means no limit. Refusals are
  /// counted in `stats` where given.
  explicit admission(int64_t limit,
                     std::shared_ptr<runtime::statistics::connection_stats> stats = nullptr)
    : state_(std::make_shared<state>(limit)), stats_(std::move(stats)) {}

  /// A place, or an empty one when `limit` requests are in flight already.
  place try_take() const;

  /// try_take() as a ticket (null when refused).
  ticket try_admit() const;

  /// The requests in flight now.
  int64_t in_flight() const noexcept { return state_->count.load(std::memory_order_acquire); }

 private:
  struct state {
    explicit state(int64_t l) : limit(l) {}
    const int64_t limit;
    std::atomic<int64_t> count{0};
  };

  std::shared_ptr<state> state_;
  std::shared_ptr<runtime::statistics::connection_stats> stats_;
};

} // namespace conch::transports::protocol
