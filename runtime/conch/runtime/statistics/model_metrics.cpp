#include "conch/runtime/statistics/model_metrics.hpp"

#include <thread>

#include "conch/runtime/statistics/metric_families.hpp"

namespace conch::runtime::statistics {

namespace {

// Whole microseconds, as the *_duration_us counters and *_summary_us
// summaries hold them (so a summary's _sum equals its counter).
double to_us(uint64_t ns) noexcept {
  return static_cast<double>(ns / 1000);
}

// Whole milliseconds, as Triton's first-response histogram holds them.
double to_ms(uint64_t ns) noexcept {
  return static_cast<double>(ns / 1000000);
}

constexpr uint64_t retired_bit = uint64_t{1} << 63;

} // namespace

// Entered by every update. Once retire() has set the top bit, an update
// leaves without touching the series; retire() waits until the updates that
// entered before it have left, so none touches a series after its release.
class model_metrics::update_guard {
 public:
  explicit update_guard(std::atomic<uint64_t>& state) noexcept
    : state_(state), open_((state_.fetch_add(1, std::memory_order_acquire) & retired_bit) == 0) {
  }
  ~update_guard() { state_.fetch_sub(1, std::memory_order_release); }
  update_guard(const update_guard&) = delete;
  update_guard& operator=(const update_guard&) = delete;

  explicit operator bool() const noexcept { return open_; }

 private:
  std::atomic<uint64_t>& state_;
  bool open_;
};

model_metrics::model_metrics(std::shared_ptr<metric_families> families,
                             prometheus::Labels labels, const model_series& series) noexcept
  : families_(std::move(families)), labels_(std::move(labels)), series_(series) {
}

model_metrics::~model_metrics() {
  retire();
}

void model_metrics::retire() noexcept {
  auto before = state_.fetch_or(retired_bit, std::memory_order_acq_rel);
  if ((before & retired_bit) != 0)
    return;
  // An update takes a few atomic adds, so this wait is short.
  while ((state_.load(std::memory_order_acquire) & ~retired_bit) != 0)
    std::this_thread::yield();
  families_->release(labels_);
}

bool model_metrics::retired() const noexcept {
  return (state_.load(std::memory_order_acquire) & retired_bit) != 0;
}

void model_metrics::record_success(uint64_t request_ns, uint64_t queue_ns,
                                   uint64_t compute_input_ns, uint64_t compute_infer_ns,
                                   uint64_t compute_output_ns) noexcept {
  update_guard guard{state_};
  if (!guard)
    return;
  series_.request_success->Increment();
  const std::array<uint64_t, latency_phase_count> phases = {
    request_ns, queue_ns, compute_input_ns, compute_infer_ns, compute_output_ns};
  for (std::size_t i = 0; i < latency_phase_count; ++i) {
    double us = to_us(phases[i]);
    if (auto* counter = series_.durations[i])
      counter->Increment(us);
    if (auto* summary = series_.summaries[i])
      summary->Observe(us);
  }
}

void model_metrics::record_first_response(uint64_t ns) noexcept {
  update_guard guard{state_};
  if (!guard)
    return;
  if (series_.first_response != nullptr)
    series_.first_response->Observe(to_ms(ns));
}

void model_metrics::record_cache(bool hit, uint64_t ns) noexcept {
  update_guard guard{state_};
  if (!guard || series_.cache_hits == nullptr)
    return;
  (hit ? series_.cache_hits : series_.cache_misses)->Increment();
  (hit ? series_.cache_hit_duration : series_.cache_miss_duration)->Increment(to_us(ns));
}

bool model_metrics::has_first_response_histogram() const noexcept {
  update_guard guard{state_};
  return guard && series_.first_response != nullptr;
}

void model_metrics::record_failure(failure_kind kind) noexcept {
  update_guard guard{state_};
  if (!guard)
    return;
  auto index = static_cast<std::size_t>(kind);
  if (index >= series_.request_failure.size())
    index = static_cast<std::size_t>(failure_kind::other);
  series_.request_failure[index]->Increment();
}

void model_metrics::record_execution(std::size_t batch_size) noexcept {
  update_guard guard{state_};
  if (!guard)
    return;
  series_.exec_count->Increment();
  series_.inference_count->Increment(static_cast<double>(batch_size));
}

void model_metrics::add_pending(int64_t delta) noexcept {
  update_guard guard{state_};
  if (!guard)
    return;
  series_.pending_request_count->Increment(static_cast<double>(delta));
}

void model_metrics::set_load_duration(double seconds) noexcept {
  update_guard guard{state_};
  if (!guard)
    return;
  series_.load_duration_secs->Set(seconds);
}

double model_metrics::pending() const noexcept {
  update_guard guard{state_};
  if (!guard)
    return 0;
  return series_.pending_request_count->Value();
}

} // namespace conch::runtime::statistics
