#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace conch::transports::openai {

/// The threads that render chat templates and count tokens, so that work
/// that takes its time (Jinja2 under Python's GIL, a long conversation)
/// never holds a loop thread, whose other connections it would stall, nor
/// a server thread. A bounded queue: past `max_queued` waiting tasks,
/// post() refuses, and the request is answered 503. Thread-safe.
class render_pool {
 public:
  render_pool(size_t threads, size_t max_queued);
  ~render_pool() { stop(); }
  render_pool(const render_pool&) = delete;
  render_pool& operator=(const render_pool&) = delete;

  /// Queues `task`; false when the queue is full or the pool is stopping.
  bool post(std::function<void()> task);

  /// Stops the pool: what waits is dropped (each task's captures are
  /// destroyed, so their responders answer), the tasks in progress finish,
  /// and the threads are joined (all but the calling one, should it be one
  /// of them: it ends by itself, on state it shares). post() refuses from
  /// then on. The owner calls it before what the tasks use goes, whoever
  /// still holds the pool.
  void stop();

 private:
  // What the threads share, kept alive by each of them.
  struct state {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void()>> queue;
    size_t max_queued = 0;
    bool stopping = false;
  };

  static void run(const std::shared_ptr<state>& s);

  std::shared_ptr<state> state_ = std::make_shared<state>();
  std::mutex threads_mutex_;
  std::vector<std::thread> threads_;
};

} // namespace conch::transports::openai
