#include "conch/runtime/statistics/model_metrics.hpp"

#include "conch/runtime/statistics/metric_families.hpp"

namespace conch::runtime::statistics {

namespace {

// Whole microseconds, as the *_duration_us counters hold them.
double to_us(uint64_t ns) noexcept {
  return static_cast<double>(ns / 1000);
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
  series_.request_success.Increment();
  series_.request_duration_us.Increment(to_us(request_ns));
  series_.queue_duration_us.Increment(to_us(queue_ns));
  series_.compute_input_duration_us.Increment(to_us(compute_input_ns));
  series_.compute_infer_duration_us.Increment(to_us(compute_infer_ns));
  series_.compute_output_duration_us.Increment(to_us(compute_output_ns));
}

void model_metrics::record_failure(failure_kind kind) noexcept {
  auto index = static_cast<std::size_t>(kind);
  if (index >= series_.request_failure.size())
    index = static_cast<std::size_t>(failure_kind::other);
  series_.request_failure[index]->Increment();
}

void model_metrics::record_execution(std::size_t batch_size) noexcept {
  series_.exec_count.Increment();
  series_.inference_count.Increment(static_cast<double>(batch_size));
}

void model_metrics::add_pending(int64_t delta) noexcept {
  series_.pending_request_count.Increment(static_cast<double>(delta));
}

void model_metrics::set_load_duration(double seconds) noexcept {
  series_.load_duration_secs.Set(seconds);
}

double model_metrics::pending() const noexcept {
  return series_.pending_request_count.Value();
}

} // namespace conch::runtime::statistics
