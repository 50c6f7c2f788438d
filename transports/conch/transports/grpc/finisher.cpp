#include "conch/transports/grpc/finisher.hpp"

#include <chrono>
#include <utility>

#include "conch/runtime/spin.hpp"

namespace conch::transports::grpc {

namespace {

// About one gap between the answers of a loaded python model.
constexpr std::chrono::microseconds idle_spin{50};

} // namespace

finisher::finisher() : thread_([this] { run(); }) {}

finisher::~finisher() {
  {
    std::lock_guard<std::mutex> guard{mutex_};
    closing_ = true;
    pending_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
  thread_.join();
}

void finisher::post(std::function<void()> task) {
  // Never after the server ended its calls; should it happen, the call is
  // still finished.
  if (!try_post(task))
    task();
}

bool finisher::try_post(std::function<void()>& task) {
  {
    std::lock_guard<std::mutex> lock{mutex_};
    if (closing_)
      return false;
    queue_.push_back(std::move(task));
    pending_.store(true, std::memory_order_release);
  }
  wake_.notify_one();
  return true;
}

void finisher::run() {
  runtime::spin_record spins;
  std::deque<std::function<void()>> batch;
  bool ran = false;
  std::unique_lock<std::mutex> lock{mutex_};
  for (;;) {
    if (ran && queue_.empty() && !closing_) {
      lock.unlock();
      runtime::spin_if_it_pays(
        spins, [this] { return pending_.load(std::memory_order_acquire); }, idle_spin);
      lock.lock();
    }
    wake_.wait(lock, [this] { return !queue_.empty() || closing_; });
    if (queue_.empty())
      return; // closing, and nothing left
    batch.swap(queue_);
    pending_.store(false, std::memory_order_relaxed);
    lock.unlock();
    for (auto& task : batch)
      task();
    batch.clear(); // what the tasks held goes here, unlocked
    ran = true;
    lock.lock();
  }
}

} // namespace conch::transports::grpc
