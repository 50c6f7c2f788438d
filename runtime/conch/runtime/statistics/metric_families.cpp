#include "conch/runtime/statistics/metric_families.hpp"

#include <exception>
#include <string>

#include <prometheus/check_names.h>

namespace conch::runtime::statistics {

namespace {

using counter_family = prometheus::Family<prometheus::Counter>;
using gauge_family = prometheus::Family<prometheus::Gauge>;

counter_family& counter(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

gauge_family& gauge(prometheus::Registry& registry, const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

// The `reason` label values, in failure_kind order.
constexpr std::array<const char*, 4> failure_reasons = {"BACKEND", "REJECTED", "CANCELED", "OTHER"};

prometheus::Labels with_reason(prometheus::Labels labels, const char* reason) {
  labels.emplace("reason", reason);
  return labels;
}

} // namespace

metric_families::metric_families(std::shared_ptr<prometheus::Registry> registry)
  : registry_(std::move(registry)),
    request_success_(counter(*registry_, "nv_inference_request_success",
                             "Number of successful inference requests, all batch sizes")),
    request_failure_(counter(*registry_, "nv_inference_request_failure",
                             "Number of failed inference requests, all batch sizes")),
    inference_count_(counter(*registry_, "nv_inference_count",
                             "Number of inferences performed (does not include cached requests)")),
    exec_count_(counter(*registry_, "nv_inference_exec_count",
                        "Number of model executions performed (does not include cached requests)")),
    request_duration_(counter(*registry_, "nv_inference_request_duration_us",
                              "Cumulative inference request duration in microseconds "
                              "(includes cached requests)")),
    queue_duration_(counter(*registry_, "nv_inference_queue_duration_us",
                            "Cumulative inference queuing duration in microseconds "
                            "(includes cached requests)")),
    compute_input_duration_(counter(*registry_, "nv_inference_compute_input_duration_us",
                                    "Cumulative compute input duration in microseconds "
                                    "(does not include cached requests)")),
    compute_infer_duration_(counter(*registry_, "nv_inference_compute_infer_duration_us",
                                    "Cumulative compute inference duration in microseconds "
                                    "(does not include cached requests)")),
    compute_output_duration_(counter(*registry_, "nv_inference_compute_output_duration_us",
                                     "Cumulative inference compute output duration in "
                                     "microseconds (does not include cached requests)")),
    pending_request_count_(gauge(*registry_, "nv_inference_pending_request_count",
                                 "Instantaneous number of pending requests awaiting execution "
                                 "per-model.")),
    load_duration_(gauge(*registry_, "nv_model_load_duration_secs", "Model load time in seconds")) {
}

const model_series* metric_families::acquire(const prometheus::Labels& labels) noexcept {
  // Checked here so that Family::Add, which throws on a bad name, never does.
  for (const auto& [name, value] : labels)
    if (!prometheus::CheckLabelName(name))
      return nullptr;
  std::lock_guard<std::mutex> guard{mutex_};
  try {
    auto& e = series_[labels];
    if (!e.series)
      e.series = create(labels);
    ++e.uses;
    return e.series.get();
  } catch (const std::exception&) {
    series_.erase(labels);
    return nullptr;
  }
}

void metric_families::release(const prometheus::Labels& labels) noexcept {
  std::lock_guard<std::mutex> guard{mutex_};
  auto i = series_.find(labels);
  if (i == series_.end() || --i->second.uses > 0)
    return;
  remove(*i->second.series);
  series_.erase(i);
}

std::unique_ptr<model_series> metric_families::create(const prometheus::Labels& labels) {
  std::array<prometheus::Counter*, 4> failures{};
  for (std::size_t i = 0; i < failures.size(); ++i)
    failures[i] = &request_failure_.Add(with_reason(labels, failure_reasons[i]));
  return std::unique_ptr<model_series>(new model_series{
    request_success_.Add(labels),
    failures,
    inference_count_.Add(labels),
    exec_count_.Add(labels),
    request_duration_.Add(labels),
    queue_duration_.Add(labels),
    compute_input_duration_.Add(labels),
    compute_infer_duration_.Add(labels),
    compute_output_duration_.Add(labels),
    pending_request_count_.Add(labels),
    load_duration_.Add(labels),
  });
}

void metric_families::remove(const model_series& s) {
  request_success_.Remove(&s.request_success);
  for (auto* failure : s.request_failure)
    request_failure_.Remove(failure);
  inference_count_.Remove(&s.inference_count);
  exec_count_.Remove(&s.exec_count);
  request_duration_.Remove(&s.request_duration_us);
  queue_duration_.Remove(&s.queue_duration_us);
  compute_input_duration_.Remove(&s.compute_input_duration_us);
  compute_infer_duration_.Remove(&s.compute_infer_duration_us);
  compute_output_duration_.Remove(&s.compute_output_duration_us);
  pending_request_count_.Remove(&s.pending_request_count);
  load_duration_.Remove(&s.load_duration_secs);
}

} // namespace conch::runtime::statistics
