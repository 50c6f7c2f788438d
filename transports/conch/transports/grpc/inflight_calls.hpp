#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "conch/transports/gateway.hpp"

namespace conch::transports::grpc {

/// Admission and cancellation of the inference calls in flight on one gRPC
/// server: admits calls until stop(), remembers how to cancel each, and
/// cancels them all at abort. Thread-safe.
class inflight_calls {
 public:
  /// A ticket for an admitted call; nullopt once stopping.
  std::optional<uint64_t> admit();

  /// Remembers how to cancel the call of `ticket` (ignored once released).
  void set_cancel(uint64_t ticket, cancel_fn cancel);

  /// Forgets a call that completed.
  void release(uint64_t ticket);

  /// Admits no more calls.
  void stop();

  /// True once stop() was called.
  bool stopping() const;

  /// Cancels every call still in flight.
  void cancel_all();

 private:
  mutable std::mutex mutex_;
  bool stopping_ = false;                          // guarded by mutex_
  uint64_t next_ = 0;                              // guarded by mutex_
  std::unordered_map<uint64_t, cancel_fn> calls_;  // guarded by mutex_
};

} // namespace conch::transports::grpc
