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

struct family_text {
  const char* name;
  const char* help;
};

// Names and HELP texts as Triton prints them, in latency_phase order. The
// compute summaries repeat the counters' "Cumulative ..." texts, as Triton's do.
constexpr std::array<family_text, latency_phase_count> duration_texts = {{
  {"nv_inference_request_duration_us",
   "Cumulative inference request duration in microseconds (includes cached requests)"},
  {"nv_inference_queue_duration_us",
   "Cumulative inference queuing duration in microseconds (includes cached requests)"},
  {"nv_inference_compute_input_duration_us",
   "Cumulative compute input duration in microseconds (does not include cached requests)"},
  {"nv_inference_compute_infer_duration_us",
   "Cumulative compute inference duration in microseconds (does not include cached requests)"},
  {"nv_inference_compute_output_duration_us",
   "Cumulative inference compute output duration in microseconds (does not include cached "
   "requests)"},
}};

constexpr std::array<family_text, latency_phase_count> summary_texts = {{
  {"nv_inference_request_summary_us",
   "Summary of inference request duration in microseconds (includes cached requests)"},
  {"nv_inference_queue_summary_us",
   "Summary of inference queuing duration in microseconds (includes cached requests)"},
  {"nv_inference_compute_input_summary_us", duration_texts[2].help},
  {"nv_inference_compute_infer_summary_us", duration_texts[3].help},
  {"nv_inference_compute_output_summary_us", duration_texts[4].help},
}};

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
    first_response_(prometheus::BuildHistogram()
                      .Name("nv_inference_first_response_histogram_ms")
                      .Help("Duration from request to first response in milliseconds")
                      .Register(*registry_)),
    pending_request_count_(gauge(*registry_, "nv_inference_pending_request_count",
                                 "Instantaneous number of pending requests awaiting execution "
                                 "per-model.")),
    load_duration_(gauge(*registry_, "nv_model_load_duration_secs", "Model load time in seconds")),
    cache_hits_(counter(*registry_, "nv_cache_num_hits_per_model",
                        "Number of cache hits per model")),
    cache_misses_(counter(*registry_, "nv_cache_num_misses_per_model",
                          "Number of cache misses per model")),
    cache_hit_duration_(counter(*registry_, "nv_cache_hit_duration_per_model",
                                "Total cache hit duration per model, in microseconds")),
    cache_miss_duration_(counter(*registry_, "nv_cache_miss_duration_per_model",
                                 "Total cache miss (insert+lookup) duration per model, in "
                                 "microseconds")) {
  for (std::size_t i = 0; i < latency_phase_count; ++i) {
    durations_[i] = &counter(*registry_, duration_texts[i].name, duration_texts[i].help);
    summaries_[i] = &prometheus::BuildSummary()
                       .Name(summary_texts[i].name)
                       .Help(summary_texts[i].help)
                       .Register(*registry_);
  }
}

const model_series* metric_families::acquire(const prometheus::Labels& labels,
                                             const series_options& options) noexcept {
  // Checked here so that Family::Add, which throws on a bad name, never does.
  for (const auto& [name, value] : labels)
    if (!prometheus::CheckLabelName(name))
      return nullptr;
  std::lock_guard<std::mutex> guard{mutex_};
  try {
    auto& e = series_[labels];
    if (!e.series)
      e.series = create(labels, options);
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

std::unique_ptr<model_series> metric_families::create(const prometheus::Labels& labels,
                                                      const series_options& options) {
  // Registered in `s` as they are added, so that a throw half-way (out of
  // memory) leaves nothing behind once remove() has run.
  auto s = std::make_unique<model_series>();
  try {
    s->request_success = &request_success_.Add(labels);
    for (std::size_t i = 0; i < s->request_failure.size(); ++i)
      s->request_failure[i] = &request_failure_.Add(with_reason(labels, failure_reasons[i]));
    s->inference_count = &inference_count_.Add(labels);
    s->exec_count = &exec_count_.Add(labels);
    for (std::size_t i = 0; i < latency_phase_count; ++i) {
      if (options.counter_latencies)
        s->durations[i] = &durations_[i]->Add(labels);
      if (!options.summary_quantiles.empty())
        s->summaries[i] = &summaries_[i]->Add(labels, options.summary_quantiles);
    }
    if (!options.first_response_buckets.empty())
      s->first_response = &first_response_.Add(labels, options.first_response_buckets);
    s->pending_request_count = &pending_request_count_.Add(labels);
    s->load_duration_secs = &load_duration_.Add(labels);
    if (options.response_cache) {
      s->cache_hits = &cache_hits_.Add(labels);
      s->cache_misses = &cache_misses_.Add(labels);
      s->cache_hit_duration = &cache_hit_duration_.Add(labels);
      s->cache_miss_duration = &cache_miss_duration_.Add(labels);
    }
  } catch (...) {
    remove(*s);
    throw;
  }
  return s;
}

void metric_families::remove(const model_series& s) {
  // Family::Remove ignores a null or unknown metric.
  request_success_.Remove(s.request_success);
  for (auto* failure : s.request_failure)
    request_failure_.Remove(failure);
  inference_count_.Remove(s.inference_count);
  exec_count_.Remove(s.exec_count);
  for (std::size_t i = 0; i < latency_phase_count; ++i) {
    durations_[i]->Remove(s.durations[i]);
    summaries_[i]->Remove(s.summaries[i]);
  }
  first_response_.Remove(s.first_response);
  pending_request_count_.Remove(s.pending_request_count);
  load_duration_.Remove(s.load_duration_secs);
  cache_hits_.Remove(s.cache_hits);
  cache_misses_.Remove(s.cache_misses);
  cache_hit_duration_.Remove(s.cache_hit_duration);
  cache_miss_duration_.Remove(s.cache_miss_duration);
}

} // namespace conch::runtime::statistics
