#include "conch/runtime/batching/batch_queue.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "conch/runtime/batching/job_batch_size.hpp"

namespace conch::runtime::batching {

namespace {

constexpr uint64_t no_time = std::numeric_limits<uint64_t>::max();

// Adds without wrapping, so that a huge timeout means "never" rather than
// "already passed".
uint64_t saturating_add(uint64_t a, uint64_t b) noexcept {
  return a > no_time - b ? no_time : a + b;
}

uint64_t micros_to_nanos(uint64_t us) noexcept {
  return us > no_time / 1000 ? no_time : us * 1000;
}

// The earlier of two moments, where 0 stands for "none".
uint64_t earliest(uint64_t a, uint64_t b) noexcept {
  if (a == 0)
    return b;
  if (b == 0)
    return a;
  return std::min(a, b);
}

// A request may only shorten the level's timeout, and only when the policy
// allows it; with no default timeout there is nothing to shorten (Triton).
uint64_t effective_timeout_us(const queue_policy& policy, uint64_t requested_us) noexcept {
  if (policy.allow_timeout_override && requested_us != 0
      && requested_us < policy.default_timeout_us)
    return requested_us;
  return policy.default_timeout_us;
}

// Triton prefixes scheduler errors with the request id when there is one.
std::string request_prefix(const inference_request& request) {
  if (request.id.empty())
    return {};
  return "[request id: " + request.id + "] ";
}

// Hands the entries of `q` that satisfy `pred` to `sink` and erases them,
// keeping the order of the rest. Linear; allocates nothing itself.
template <class Queue, class Pred, class Sink>
void extract_if(Queue& q, Pred pred, Sink sink) {
  auto kept = q.begin();
  for (auto it = q.begin(); it != q.end(); ++it) {
    if (pred(*it)) {
      sink(std::move(*it));
    } else {
      if (kept != it)
        *kept = std::move(*it);
      ++kept;
    }
  }
  q.erase(kept, q.end());
}

} // namespace

// -- scan_result ------------------------------------------------------------

struct batch_queue::scan_result {
  /// Jobs that fit into one batch, in service order.
  size_t count = 0;
  /// Their batch items.
  size_t items = 0;
  /// The job count of the batch to send at once, or 0: the longest prefix
  /// that fills a preferred size, else the prefix that the next job would
  /// push past the largest preferred size.
  size_t best_count = 0;
  /// True when the next job would exceed max_batch_size.
  bool full = false;
  /// The earliest enqueue time among the `count` jobs.
  uint64_t oldest = no_time;
};

// -- constructors -----------------------------------------------------------

batch_queue::batch_queue(batcher_config config)
  : config_(std::move(config)),
    max_items_(static_cast<size_t>(std::max<int32_t>(1, config_.max_batch_size))),
    delay_ns_(config_.dynamic ? micros_to_nanos(config_.max_queue_delay_us) : 0) {
  for (int32_t size : config_.preferred_batch_sizes)
    if (size > 0 && static_cast<size_t>(size) <= max_items_)
      preferred_.push_back(static_cast<size_t>(size));
  std::sort(preferred_.begin(), preferred_.end());
  preferred_.erase(std::unique(preferred_.begin(), preferred_.end()), preferred_.end());
  // Triton's normalisation makes max_batch_size the preferred size when the
  // configuration names none; doing the same here keeps a raw config usable.
  max_preferred_ = preferred_.empty() ? max_items_ : preferred_.back();
  // Create the level of jobs that name no priority now, so that the common
  // case never grows `levels_` on the request path.
  level_for(level_number(0));
}

// -- queueing ---------------------------------------------------------------

status batch_queue::enqueue(job_ptr job, uint64_t now_ns) { return place(std::move(job), now_ns, false); }

status batch_queue::return_to_front(job_ptr job, uint64_t now_ns) {
  return place(std::move(job), now_ns, true);
}

status batch_queue::place(job_ptr job, uint64_t now_ns, bool front) {
  const inference_request& request = job->request();
  const size_t items = job_batch_size(*job, config_.max_batch_size);
  if (items > max_items_)
    return invalid_argument(request_prefix(request) + "inference request batch-size must be <= "
                            + std::to_string(max_items_) + " for '" + request.model_name + "'");
  level& lv = level_for(level_number(request.priority));
  if (!front && lv.policy.max_queue_size != 0 && lv.size() >= lv.policy.max_queue_size)
    return unavailable(request_prefix(request) + "Exceeds maximum queue size");
  // A job put back waited its turn already: it is not timed again (which also
  // keeps the earliest deadline of a level at its front).
  const uint64_t timeout_us = front ? 0 : effective_timeout_us(lv.policy, request.timeout_us);
  const uint64_t deadline = timeout_us == 0 ? 0 : saturating_add(now_ns, micros_to_nanos(timeout_us));
  // A job that went through another queue first keeps its first stamp, so
  // that its queue time covers the whole wait.
  if (job->times().queue_start == 0)
    job->times().queue_start = now_ns;
  entry e{std::move(job), deadline, now_ns, items};
  if (front)
    lv.ready.push_front(std::move(e));
  else
    lv.ready.push_back(std::move(e));
  if (deadline != 0) {
    ++lv.timed;
    ++timed_;
  }
  ++size_;
  return status::ok();
}

batch_queue::decision batch_queue::next(uint64_t now_ns) {
  decision result;
  if (timed_ != 0)
    expire(now_ns, result.timed_out);
  size_t count = 0;
  if (config_.dynamic)
    count = plan(now_ns, result.wake_at_ns);
  else if (size_ != 0)
    count = 1;
  if (count != 0) {
    take_front(count, result.jobs);
    result.wake_at_ns = wake_after(now_ns);
  }
  return result;
}

std::vector<job_ptr> batch_queue::take_expired(uint64_t now_ns) {
  std::vector<job_ptr> result;
  if (timed_ != 0)
    expire(now_ns, result);
  return result;
}

std::vector<job_ptr> batch_queue::take_cancelled() {
  std::vector<job_ptr> result;
  auto cancelled = [](const entry& e) { return e.job->is_cancelled(); };
  for (auto& lv : levels_) {
    extract_if(lv.ready, cancelled, [&](entry&& e) {
      if (e.deadline_ns != 0) {
        --lv.timed;
        --timed_;
      }
      result.push_back(std::move(e.job));
    });
    extract_if(lv.delayed, cancelled, [&](entry&& e) { result.push_back(std::move(e.job)); });
  }
  size_ -= result.size();
  return result;
}

std::vector<job_ptr> batch_queue::take_all() {
  std::vector<job_ptr> result;
  result.reserve(size_);
  for (auto& lv : levels_) {
    for (auto* q : {&lv.ready, &lv.delayed}) {
      for (auto& e : *q)
        result.push_back(std::move(e.job));
      q->clear();
    }
    lv.timed = 0;
  }
  size_ = 0;
  timed_ = 0;
  return result;
}

// -- properties -------------------------------------------------------------

uint64_t batch_queue::next_deadline() const noexcept {
  uint64_t result = 0;
  for (const auto& lv : levels_) {
    if (lv.timed == 0)
      continue;
    // Without overrides every job of a level has the same timeout, so the
    // deadlines grow with arrival and the first timed job holds the earliest
    // (only jobs put back at the front have none).
    if (!lv.policy.allow_timeout_override) {
      for (const auto& e : lv.ready)
        if (e.deadline_ns != 0) {
          result = earliest(result, e.deadline_ns);
          break;
        }
      continue;
    }
    for (const auto& e : lv.ready)
      result = earliest(result, e.deadline_ns);
  }
  return result;
}

// -- helpers ----------------------------------------------------------------

uint64_t batch_queue::level_number(uint64_t priority) const noexcept {
  const uint64_t levels = config_.priority_levels;
  if (!config_.dynamic || levels == 0)
    return 0;
  if (priority >= 1 && priority <= levels)
    return priority;
  const uint64_t fallback = config_.default_priority_level;
  // Validation keeps the default within 1..levels; should it not be, the
  // lowest level is the least surprising home for such jobs.
  return fallback >= 1 && fallback <= levels ? fallback : levels;
}

batch_queue::level& batch_queue::level_for(uint64_t number) {
  auto it = std::lower_bound(levels_.begin(), levels_.end(), number,
                             [](const level& lv, uint64_t n) { return lv.number < n; });
  if (it != levels_.end() && it->number == number)
    return *it;
  // First job at this level: levels are created on demand because a model
  // may declare many more levels than it ever uses.
  level created;
  created.number = number;
  created.policy = config_.default_policy;
  if (auto found = config_.level_policies.find(number);
      number != 0 && found != config_.level_policies.end())
    created.policy = found->second;
  return *levels_.insert(it, std::move(created));
}

void batch_queue::expire(uint64_t now_ns, std::vector<job_ptr>& timed_out) {
  for (auto& lv : levels_)
    if (lv.timed != 0)
      expire_level(lv, now_ns, timed_out);
}

void batch_queue::expire_level(level& lv, uint64_t now_ns, std::vector<job_ptr>& timed_out) {
  auto expired = [now_ns](const entry& e) { return e.deadline_ns != 0 && now_ns >= e.deadline_ns; };
  if (!lv.policy.allow_timeout_override) {
    // Deadlines grow with arrival here: the expired jobs form a prefix, once
    // past the untimed jobs put back at the front (return_to_front).
    size_t first = 0;
    while (first < lv.ready.size() && lv.ready[first].deadline_ns == 0)
      ++first;
    while (first < lv.ready.size() && expired(lv.ready[first])) {
      entry e = std::move(lv.ready[first]);
      lv.ready.erase(lv.ready.begin() + static_cast<std::ptrdiff_t>(first));
      expire_entry(lv, std::move(e), timed_out);
    }
    return;
  }
  // Overrides break the arrival order of deadlines: look at every job.
  // expire_entry may append to `delayed`, never to `ready`, which we walk.
  extract_if(lv.ready, expired, [&](entry&& e) { expire_entry(lv, std::move(e), timed_out); });
}

void batch_queue::expire_entry(level& lv, entry&& e, std::vector<job_ptr>& timed_out) {
  --lv.timed;
  --timed_;
  if (lv.policy.action == timeout_action::delay) {
    e.deadline_ns = 0;
    lv.delayed.push_back(std::move(e));
    return;
  }
  timed_out.push_back(std::move(e.job));
  --size_;
}

batch_queue::scan_result batch_queue::scan() const noexcept {
  scan_result s;
  bool crossed = false;
  // Visits one job in service order; false ends the walk.
  auto visit = [&](const entry& e) {
    if (s.count != 0) {
      if (!crossed && s.items + e.items > max_preferred_) {
        crossed = true;
        if (s.best_count == 0)
          s.best_count = s.count;
      }
      if (s.items + e.items > max_items_) {
        s.full = true;
        return false;
      }
    }
    s.items += e.items;
    ++s.count;
    s.oldest = std::min(s.oldest, e.enqueued_ns);
    if (is_preferred(s.items))
      s.best_count = s.count;
    return true;
  };
  for (const auto& lv : levels_)
    for (const auto* q : {&lv.ready, &lv.delayed})
      for (const auto& e : *q)
        if (!visit(e))
          return s;
  return s;
}

size_t batch_queue::plan(uint64_t now_ns, uint64_t& wake_at_ns) const noexcept {
  const scan_result s = scan();
  if (s.count == 0)
    return 0;
  const uint64_t waited = now_ns > s.oldest ? now_ns - s.oldest : 0;
  const bool delay_over = delay_ns_ != 0 && waited >= delay_ns_;
  // A preferred size goes at once, as long as the oldest job still has time
  // to wait; once the delay is over, everything that fits goes (Triton).
  if (s.best_count != 0 && !delay_over)
    return s.best_count;
  if (s.full || s.items >= max_preferred_ || delay_over || delay_ns_ == 0)
    return s.count;
  wake_at_ns = earliest(saturating_add(s.oldest, delay_ns_), next_deadline());
  return 0;
}

void batch_queue::take_front(size_t count, backends::batch& out) {
  out.reserve(count);
  for (auto& lv : levels_) {
    for (auto* q : {&lv.ready, &lv.delayed}) {
      while (count != 0 && !q->empty()) {
        entry& e = q->front();
        if (e.deadline_ns != 0) {
          --lv.timed;
          --timed_;
        }
        out.push_back(std::move(e.job));
        q->pop_front();
        --count;
        --size_;
      }
    }
    if (count == 0)
      return;
  }
}

uint64_t batch_queue::wake_after(uint64_t now_ns) const noexcept {
  if (size_ == 0)
    return 0;
  uint64_t result = next_deadline();
  // The rest may be waiting for the batching delay; once it ends they go.
  if (delay_ns_ != 0) {
    const uint64_t delay_end = saturating_add(oldest_enqueued(), delay_ns_);
    if (delay_end > now_ns)
      result = earliest(result, delay_end);
  }
  return result;
}

uint64_t batch_queue::oldest_enqueued() const noexcept {
  uint64_t result = no_time;
  for (const auto& lv : levels_) {
    // `ready` is in arrival order; `delayed` is in timeout order, which
    // overrides can make differ from arrival order.
    if (!lv.ready.empty())
      result = std::min(result, lv.ready.front().enqueued_ns);
    for (const auto& e : lv.delayed)
      result = std::min(result, e.enqueued_ns);
  }
  return result;
}

bool batch_queue::is_preferred(size_t items) const noexcept {
  return std::binary_search(preferred_.begin(), preferred_.end(), items);
}

} // namespace conch::runtime::batching
