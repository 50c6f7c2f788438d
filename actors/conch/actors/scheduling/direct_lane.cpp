#include "conch/actors/scheduling/direct_lane.hpp"

namespace conch::actors {

// The scheduler writes `wanted_` and then looks at the slots; a lessee
// writes its slot and then looks at `wanted_`. Both sides use sequentially
// consistent operations, so at least one of them sees the other's write: a
// released instance is never left parked while the scheduler waits for it.

direct_lane::direct_lane(size_t slots)
  : size_(slots),
    states_(new std::atomic<uint8_t>[slots]),
    bindings_(new binding[slots]) {
  for (size_t i = 0; i < slots; ++i)
    states_[i].store(owned, std::memory_order_relaxed);
}

void direct_lane::park(size_t index, binding b) {
  if (b.worker)
    workers_.store(true, std::memory_order_relaxed);
  bindings_[index] = std::move(b);
  states_[index].store(parked, std::memory_order_seq_cst);
}

bool direct_lane::reclaim(size_t index) {
  uint8_t expected = parked;
  return states_[index].compare_exchange_strong(expected, owned, std::memory_order_seq_cst);
}

void direct_lane::want(bool wanted) noexcept {
  wanted_.store(wanted, std::memory_order_seq_cst);
  if (!wanted) {
    std::lock_guard<std::mutex> guard{waiting_mutex_};
    waiting_open_ = true;
  }
}

void direct_lane::unbind(size_t index) {
  bindings_[index] = binding{};
}

std::optional<size_t> direct_lane::try_lease(int attempts) noexcept {
  // A lease of an instance that runs on the submitting thread lasts a few
  // microseconds: when every instance is leased, looking again a few times
  // is cheaper than the actor path, and bounded.
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (wanted_.load(std::memory_order_seq_cst))
      return std::nullopt;
    // Start where the last lease started, so that concurrent lessees spread
    // over the instances instead of all racing for the first.
    size_t start = hint_.fetch_add(1, std::memory_order_relaxed);
    for (size_t n = 0; n < size_; ++n) {
      size_t i = (start + n) % size_;
      uint8_t expected = parked;
      if (states_[i].compare_exchange_strong(expected, leased, std::memory_order_seq_cst))
        return i;
    }
    if (attempt + 1 < attempts)
      __builtin_ia32_pause();
  }
  return std::nullopt;
}

bool direct_lane::release(size_t index, bool crashed) noexcept {
  if (crashed) {
    states_[index].store(owned, std::memory_order_seq_cst);
    return true;
  }
  states_[index].store(parked, std::memory_order_seq_cst);
  if (!wanted_.load(std::memory_order_seq_cst))
    return false;
  // The scheduler may reclaim it at the same moment; one of us wins.
  uint8_t expected = parked;
  return states_[index].compare_exchange_strong(expected, owned, std::memory_order_seq_cst);
}

bool direct_lane::wait(runtime::job_ptr job) {
  if (!keeps_waiting())
    return false;
  std::shared_ptr<runtime::cancel_listener> listener;
  {
    std::lock_guard<std::mutex> guard{waiting_mutex_};
    if (!waiting_open_ || waiting_.size() >= waiting_limit)
      return false;
    waiting_.push_back(job);
    waiting_count_.fetch_add(1, std::memory_order_seq_cst);
    listener = cancel_listener_;
  }
  // Unlocked: a job cancelled already tells the listener at once, which
  // takes it out of the lane. Whoever owns the job by then may have named
  // its own listener first (the scheduler's queue); that one hears instead.
  if (listener)
    job->set_cancel_listener(std::move(listener));
  return true;
}

void direct_lane::set_cancel_listener(std::shared_ptr<runtime::cancel_listener> listener) {
  std::lock_guard<std::mutex> guard{waiting_mutex_};
  cancel_listener_ = std::move(listener);
}

std::vector<runtime::job_ptr> direct_lane::take_cancelled() {
  std::vector<runtime::job_ptr> out;
  std::lock_guard<std::mutex> guard{waiting_mutex_};
  auto kept = waiting_.begin();
  for (auto& job : waiting_) {
    if (job->is_cancelled())
      out.push_back(std::move(job));
    else
      *kept++ = std::move(job);
  }
  waiting_.erase(kept, waiting_.end());
  waiting_count_.store(waiting_.size(), std::memory_order_seq_cst);
  return out;
}

runtime::job_ptr direct_lane::next_waiting() {
  if (!has_waiting())
    return nullptr;
  std::lock_guard<std::mutex> guard{waiting_mutex_};
  if (waiting_.empty())
    return nullptr;
  auto job = std::move(waiting_.front());
  waiting_.pop_front();
  waiting_count_.fetch_sub(1, std::memory_order_seq_cst);
  return job;
}

std::vector<runtime::job_ptr> direct_lane::close_waiting() {
  std::lock_guard<std::mutex> guard{waiting_mutex_};
  waiting_open_ = false;
  std::vector<runtime::job_ptr> jobs{std::make_move_iterator(waiting_.begin()),
                                     std::make_move_iterator(waiting_.end())};
  waiting_.clear();
  waiting_count_.store(0, std::memory_order_seq_cst);
  return jobs;
}

} // namespace conch::actors
