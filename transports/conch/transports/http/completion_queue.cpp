#include "conch/transports/http/completion_queue.hpp"

namespace conch::transports::http {

namespace {

// The queue whose loop runs a handler on this thread, if any.
thread_local const completion_queue* own_queue = nullptr;

} // namespace

bool completion_queue::push(completion c) {
  bool own = own_queue == this;
  std::lock_guard<std::mutex> guard{mutex_};
  if (closed_)
    return false;
  pending_.push_back(std::move(c));
  ready_.store(true, std::memory_order_release);
  // Under the lock, so that close() cannot slip in between and let the loop
  // close the handle before this send, nor set_polled(false) miss the push.
  if (own)
    own_pushed_ = true;
  else if (!polled_)
    uv_async_send(wake_);
  return true;
}

void completion_queue::begin_own_pushes() noexcept {
  own_queue = this;
  own_pushed_ = false;
}

bool completion_queue::end_own_pushes() noexcept {
  own_queue = nullptr;
  return own_pushed_;
}

void completion_queue::command(loop_command command) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (closed_)
    return;
  if (command > command_)
    command_ = command;
  uv_async_send(wake_);
}

completion_queue::batch completion_queue::take() {
  batch out;
  std::lock_guard<std::mutex> guard{mutex_};
  out.completions.swap(pending_);
  ready_.store(false, std::memory_order_relaxed);
  out.command = command_;
  command_ = loop_command::none;
  return out;
}

bool completion_queue::set_polled(bool polled) {
  std::lock_guard<std::mutex> guard{mutex_};
  polled_ = polled;
  return !pending_.empty();
}

void completion_queue::close() {
  std::vector<completion> dropped;
  std::lock_guard<std::mutex> guard{mutex_};
  closed_ = true;
  dropped.swap(pending_);
  ready_.store(false, std::memory_order_relaxed);
}

} // namespace conch::transports::http
