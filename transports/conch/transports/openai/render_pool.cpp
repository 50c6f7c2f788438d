#include "conch/transports/openai/render_pool.hpp"

namespace conch::transports::openai {

render_pool::render_pool(size_t threads, size_t max_queued) : max_queued_(max_queued) {
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i)
    threads_.emplace_back([this] { run(); });
}

render_pool::~render_pool() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  wake_.notify_all();
  dropped.clear();  // outside the lock: a task's captures may answer its client
  for (auto& t : threads_)
    t.join();
}

bool render_pool::post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || queue_.size() >= max_queued_)
      return false;
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

void render_pool::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_)
        return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

} // namespace conch::transports::openai
