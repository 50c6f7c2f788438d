#include "conch/runtime/statistics/model_statistics.hpp"

#include <algorithm>

#include "conch/runtime/clock.hpp"

namespace conch::runtime::statistics {

model_statistics::model_statistics(std::string name, int64_t version, bool decoupled,
                                   int32_t max_batch_size, std::unique_ptr<model_metrics> metrics)
  : name_(std::move(name)),
    version_(version),
    decoupled_(decoupled),
    metrics_(std::move(metrics)),
    batches_(static_cast<std::size_t>(std::max<int32_t>(max_batch_size, 1))) {
}

void model_statistics::on_enqueue() noexcept {
  pending_.fetch_add(1, std::memory_order_relaxed);
  if (metrics_)
    metrics_->add_pending(1);
}

void model_statistics::on_dequeue(std::size_t n) noexcept {
  pending_.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
  if (metrics_)
    metrics_->add_pending(-static_cast<int64_t>(n));
}

void model_statistics::count_execution(std::size_t batch_size) noexcept {
  execution_count_.fetch_add(1, std::memory_order_relaxed);
  inference_count_.fetch_add(batch_size, std::memory_order_relaxed);
  last_inference_.store(wall_ms(), std::memory_order_relaxed);
  if (metrics_)
    metrics_->record_execution(batch_size);
}

void model_statistics::record_execution_times(std::size_t batch_size, uint64_t exec_start,
                                              uint64_t input_end, uint64_t output_start,
                                              uint64_t exec_end) noexcept {
  // A missing middle timestamp moves its phase's time into the next phase.
  uint64_t infer_from = input_end != 0 ? input_end : exec_start;
  uint64_t infer_to = output_start != 0 ? output_start : exec_end;
  batches_.record(batch_size, span_ns(exec_start, input_end), span_ns(infer_from, infer_to),
                  span_ns(output_start, exec_end));
}

void model_statistics::record_execution(std::size_t batch_size, uint64_t exec_start,
                                        uint64_t input_end, uint64_t output_start,
                                        uint64_t exec_end) noexcept {
  count_execution(batch_size);
  record_execution_times(batch_size, exec_start, input_end, output_start, exec_end);
}

void model_statistics::record_cache_hit(uint64_t lookup_ns) noexcept {
  cache_hit_.add(lookup_ns);
  if (metrics_)
    metrics_->record_cache(true, lookup_ns);
}

void model_statistics::record_cache_miss(uint64_t lookup_ns) noexcept {
  cache_miss_.add(lookup_ns);
  if (metrics_)
    metrics_->record_cache(false, lookup_ns);
}

void model_statistics::record_load_duration(double seconds) noexcept {
  if (metrics_)
    metrics_->set_load_duration(seconds);
}

void model_statistics::retire_metrics() noexcept {
  if (metrics_)
    metrics_->retire();
}

void model_statistics::on_response(const inference_job& job, const inference_response& response,
                                   uint64_t now) {
  if (!decoupled_)
    return;
  responses_.record(job, response, now);
  if (metrics_ && job.response_count() == 1)
    metrics_->record_first_response(span_ns(job.times().arrival, now));
}

void model_statistics::on_complete(const inference_job& job, const status& outcome,
                                   uint64_t now) {
  last_inference_.store(wall_ms(), std::memory_order_relaxed);
  uint64_t request_ns = span_ns(job.times().arrival, now);
  if (outcome.is_ok())
    record_success(job.times(), now, request_ns);
  else
    record_failure(job, outcome, request_ns);
  if (decoupled_)
    responses_.forget(job);
}

void model_statistics::record_success(const job_times& t, uint64_t now,
                                      uint64_t request_ns) noexcept {
  uint64_t queued = t.queue_start != 0 ? t.queue_start : t.arrival;
  uint64_t queue_ns = span_ns(queued, t.exec_start);
  auto phases = compute_phases(t, now);
  uint64_t input_ns = phases.input;
  uint64_t infer_ns = phases.infer;
  uint64_t output_ns = phases.output;
  // Every success counts once in queue and compute (Triton's invariant
  // queue.count == success.count, on which perf_analyzer relies), except
  // one answered from the response cache, which never executed: it counts
  // in success and queue only, as in Triton.
  success_.add(request_ns);
  queue_.add(queue_ns);
  if (t.exec_start == 0) {
    if (metrics_)
      metrics_->record_success(request_ns, queue_ns, 0, 0, 0);
    return;
  }
  compute_input_.add(input_ns);
  compute_infer_.add(infer_ns);
  compute_output_.add(output_ns);
  if (metrics_)
    metrics_->record_success(request_ns, queue_ns, input_ns, infer_ns, output_ns);
}

void model_statistics::record_failure(const inference_job& job, const status& outcome,
                                      uint64_t request_ns) noexcept {
  fail_.add(request_ns);
  // A CANCELLED answer counts as cancelled even when sent with respond().
  auto kind = outcome.code() == errc::cancelled ? failure_kind::cancelled : job.failure();
  if (metrics_)
    metrics_->record_failure(kind);
}

statistics_snapshot model_statistics::snapshot() const {
  statistics_snapshot s;
  s.name = name_;
  s.version = version_;
  s.last_inference = last_inference_.load(std::memory_order_relaxed);
  s.inference_count = inference_count_.load(std::memory_order_relaxed);
  s.execution_count = execution_count_.load(std::memory_order_relaxed);
  s.success = success_.load();
  s.fail = fail_.load();
  s.queue = queue_.load();
  s.compute_input = compute_input_.load();
  s.compute_infer = compute_infer_.load();
  s.compute_output = compute_output_.load();
  s.cache_hit = cache_hit_.load();
  s.cache_miss = cache_miss_.load();
  s.batch_stats = batches_.snapshot();
  if (decoupled_)
    s.response_stats = responses_.snapshot();
  return s;
}

} // namespace conch::runtime::statistics
