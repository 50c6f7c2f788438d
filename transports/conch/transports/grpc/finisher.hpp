#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace conch::transports::grpc {

/// A thread of the gRPC server's own that finishes unary calls answered on
/// a model's thread, and starts the writes of streams answered there.
/// Finish and StartWrite start the write on the thread that calls them
/// (encoding, the transport's send), which costs a python model's worker
/// more than the model itself; handed here, the worker goes on to its next
/// request while this thread writes. It spins for a moment before it sleeps
/// while its recent spins paid off (runtime/spin.hpp). Tasks run in the
/// order posted; destruction runs what is left, then joins. Thread-safe.
class finisher {
 public:
  finisher();
  ~finisher();
  finisher(const finisher&) = delete;
  finisher& operator=(const finisher&) = delete;

  /// Queues `task`; once destruction has begun, runs it on the caller.
  void post(std::function<void()> task);

  /// Queues `task` and returns true; once destruction has begun, returns
  /// false and leaves `task` to the caller, who may hold a lock the task
  /// would take.
  bool try_post(std::function<void()>& task);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;  // guarded by mutex_
  bool closing_ = false;                     // guarded by mutex_
  std::atomic<bool> pending_{false};         // !queue_.empty(), read while spinning
  std::thread thread_;
};

} // namespace conch::transports::grpc
