#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "conch/transports/gateway.hpp"

namespace conch::transports::grpc {

/// Admission and cancellation of the inference calls in flight on one gRPC
/// server: admits calls until stop() (unary calls until cancel_all()),
/// remembers how to cancel each, and cancels them all at abort.
/// Thread-safe.
class inflight_calls {
 public:
  /// A ticket for an admitted stream; nullopt once stopping.
  std::optional<uint64_t> admit();

  /// A ticket for an admitted unary call; nullopt once cancel_all() ran.
  /// A unary call that reaches the server while it drains is served: gRPC
  /// refuses new calls on the wire once the server shuts down, where a
  /// client or a load balancer can retry them elsewhere; one that got in
  /// before that is answered like any other, since the server's core runs
  /// until its frontends have drained.
  std::optional<uint64_t> admit_unary();

  /// Remembers how to cancel the call of `ticket` (ignored once released).
  void set_cancel(uint64_t ticket, cancel_fn cancel);

  /// Forgets a call that completed.
  void release(uint64_t ticket);

  /// How many calls are in flight (admitted, not released); reads no lock,
  /// as a model's thread asks it for each response it answers.
  size_t in_flight() const;

  /// Remembers what to tell the call of `ticket` when the server begins to
  /// stop: a stream then answers what it has and ends (ignored once released).
  void set_stop(uint64_t ticket, std::function<void()> on_stop);

  /// Admits no more calls, and tells the calls that asked for it.
  void stop();

  /// True once stop() was called.
  bool stopping() const;

  /// Cancels every call still in flight, and admits none from then on.
  void cancel_all();

 private:
  // Records a new call; mutex_ held.
  uint64_t add();

  struct entry {
    cancel_fn cancel;
    std::function<void()> on_stop;
  };

  mutable std::mutex mutex_;
  bool stopping_ = false;                      // guarded by mutex_
  bool cancelled_ = false;                     // guarded by mutex_
  uint64_t next_ = 0;                          // guarded by mutex_
  std::unordered_map<uint64_t, entry> calls_;  // guarded by mutex_
  std::atomic<size_t> count_{0};               // calls_.size(), written under mutex_
};

} // namespace conch::transports::grpc
