#include "conch/runtime/statistics/model_metrics.hpp"

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

} // namespace

model_metrics::model_metrics(std::shared_ptr<metric_families> families,
                             prometheus::Labels labels, const model_series& series) noexcept
  : families_(std::move(families)), labels_(std::move(labels)), series_(series) {
}

model_metrics::~model_metrics() {
  families_->release(labels_);
}

void model_metrics::record_success(uint64_t request_ns, uint64_t queue_ns,
                                   uint64_t compute_input_ns, uint64_t compute_infer_ns,
                                   uint64_t compute_output_ns) noexcept {
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
  if (series_.first_response != nullptr)
    series_.first_response->Observe(to_ms(ns));
}

bool model_metrics::has_first_response_histogram() const noexcept {
  return series_.first_response != nullptr;
}

void model_metrics::record_failure(failure_kind kind) noexcept {
  auto index = static_cast<std::size_t>(kind);
  if (index >= series_.request_failure.size())
    index = static_cast<std::size_t>(failure_kind::other);
  series_.request_failure[index]->Increment();
}

void model_metrics::record_execution(std::size_t batch_size) noexcept {
  series_.exec_count->Increment();
  series_.inference_count->Increment(static_cast<double>(batch_size));
}

void model_metrics::add_pending(int64_t delta) noexcept {
  series_.pending_request_count->Increment(static_cast<double>(delta));
}

void model_metrics::set_load_duration(double seconds) noexcept {
  series_.load_duration_secs->Set(seconds);
}

double model_metrics::pending() const noexcept {
  return series_.pending_request_count->Value();
}

} // namespace conch::runtime::statistics
