#include "conch/transports/openai/render_pool.hpp"

namespace conch::transports::openai {

render_pool::render_pool(size_t threads, size_t max_queued) {
  state_->max_queued = max_queued;
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i)
    threads_.emplace_back([s = state_] { run(s); });
}

void render_pool::stop() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
    dropped.swap(state_->queue);
  }
  state_->wake.notify_all();
  dropped.clear();  // outside the lock: a task's captures may answer its client
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(threads_mutex_);
    threads.swap(threads_);
  }
  for (auto& t : threads) {
    if (t.get_id() == std::this_thread::get_id())
      t.detach();
    else
      t.join();
  }
}

bool render_pool::post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->stopping || state_->queue.size() >= state_->max_queued)
      return false;
    state_->queue.push_back(std::move(task));
  }
  state_->wake.notify_one();
  return true;
}

void render_pool::run(const std::shared_ptr<state>& s) {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(s->mutex);
      s->wake.wait(lock, [&] { return s->stopping || !s->queue.empty(); });
      if (s->stopping)
        return;
      task = std::move(s->queue.front());
      s->queue.pop_front();
    }
    task();
  }
}

} // namespace conch::transports::openai
