#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace conch::transports::openai {

/// The threads that render chat templates, so that a renderer that takes
/// its time (Jinja2 under Python's GIL, a long conversation) never holds a
/// loop thread, whose other connections it would stall. A bounded queue:
/// past `max_queued` waiting renders, post() refuses, and the request is
/// answered 503. Destroying the pool drops what waits (each task's captures
/// are destroyed, so their responders answer) and joins the threads after
/// the renders in progress. Thread-safe.
class render_pool {
 public:
  render_pool(size_t threads, size_t max_queued);
  ~render_pool();
  render_pool(const render_pool&) = delete;
  render_pool& operator=(const render_pool&) = delete;

  /// Queues `task`; false when the queue is full or the pool is stopping.
  bool post(std::function<void()> task);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  size_t max_queued_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

} // namespace conch::transports::openai
