#include "conch/transports/grpc/inflight_calls.hpp"

#include <vector>

namespace conch::transports::grpc {

std::optional<uint64_t> inflight_calls::admit() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (stopping_ || cancelled_)
    return std::nullopt;
  return add();
}

std::optional<uint64_t> inflight_calls::admit_unary() {
  std::lock_guard<std::mutex> guard{mutex_};
  if (cancelled_)
    return std::nullopt;
  return add();
}

uint64_t inflight_calls::add() {
  auto ticket = next_++;
  calls_.emplace(ticket, entry{});
  count_.store(calls_.size(), std::memory_order_relaxed);
  return ticket;
}

void inflight_calls::set_cancel(uint64_t ticket, cancel_fn cancel) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (auto i = calls_.find(ticket); i != calls_.end())
    i->second.cancel = std::move(cancel);
}

void inflight_calls::set_stop(uint64_t ticket, std::function<void()> on_stop) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (auto i = calls_.find(ticket); i != calls_.end())
    i->second.on_stop = std::move(on_stop);
}

size_t inflight_calls::in_flight() const {
  return count_.load(std::memory_order_relaxed);
}

void inflight_calls::release(uint64_t ticket) {
  entry dropped;
  std::lock_guard<std::mutex> guard{mutex_};
  if (auto i = calls_.find(ticket); i != calls_.end()) {
    dropped = std::move(i->second);
    calls_.erase(i);
    count_.store(calls_.size(), std::memory_order_relaxed);
  }
}

void inflight_calls::stop() {
  std::vector<std::function<void()>> hooks;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (stopping_)
      return;
    stopping_ = true;
    for (auto& [ticket, e] : calls_)
      if (e.on_stop)
        hooks.push_back(e.on_stop);
  }
  // Outside the lock: a hook may finish its call, which releases it.
  for (auto& hook : hooks)
    hook();
}

bool inflight_calls::stopping() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return stopping_;
}

void inflight_calls::cancel_all() {
  std::vector<cancel_fn> cancels;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    cancelled_ = true;
    for (auto& [ticket, e] : calls_)
      if (e.cancel)
        cancels.push_back(e.cancel);
  }
  // Outside the lock: a cancel may complete its call, which releases it.
  for (auto& cancel : cancels)
    cancel();
}

} // namespace conch::transports::grpc
