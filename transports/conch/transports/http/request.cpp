#include "conch/transports/http/request.hpp"

namespace conch::transports::http {

void request::on_cancel(std::function<void()> hook) {
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (settled_)
      return;
    if (!cancelled_) {
      hook_ = std::move(hook);
      return;
    }
  }
  if (hook)
    hook();
}

bool request::cancelled() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return cancelled_;
}

void request::cancel() {
  std::function<void()> hook;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (cancelled_ || settled_)
      return;
    cancelled_ = true;
    hook.swap(hook_);
  }
  // Outside the lock: the hook may call back into this request.
  if (hook)
    hook();
}

void request::settle() {
  std::function<void()> hook;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    settled_ = true;
    hook.swap(hook_);
  }
  // `hook` is destroyed here, outside the lock.
}

} // namespace conch::transports::http
