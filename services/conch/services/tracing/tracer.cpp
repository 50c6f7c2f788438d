#include "conch/services/tracing/tracer.hpp"

#include <chrono>
#include <thread>

#include "conch/services/tracing/otlp_exporter.hpp"
#include "conch/services/tracing/trace_file_writer.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::services {

using runtime::tracing::trace_mode;
using runtime::tracing::trace_settings;

/// One set of effective settings and its sampling state: the rate's counter
/// and the traces left. Shared by the global settings and every model
/// without values of its own.
struct tracer::sampler {
  trace_settings settings;
  std::shared_ptr<runtime::trace_sink> sink;
  std::mutex mu;
  uint64_t seen = 0;     // guarded by mu
  int32_t left = -1;     // guarded by mu

  // What a trace records: OpenTelemetry mode takes timestamps only.
  uint32_t level = 0;

  bool may_sample() const { return level != 0 && sink != nullptr; }
};

tracer::tracer(trace_settings global)
  : ids_(std::make_shared<std::atomic<uint64_t>>(0)),
    live_(std::make_shared<std::atomic<int64_t>>(0)),
    global_(global), startup_(std::move(global)) {
  std::lock_guard<std::mutex> guard{mu_};
  global_sampler_ = make_sampler(global_);
  refresh_active();
}

tracer::~tracer() { close(); }

std::shared_ptr<tracer::sampler> tracer::make_sampler(const trace_settings& s) {
  auto out = std::make_shared<sampler>();
  out->settings = s;
  out->left = s.count;
  bool otel = s.mode == trace_mode::opentelemetry;
  out->level = otel ? s.level & runtime::trace_timestamps : s.level;
  if (otel && (s.level & runtime::trace_tensors) != 0 && !closed_)
    CONCH_LOG_WARN << "Tensor level tracing is not supported by the mode: opentelemetry";
  if (out->level == 0 || closed_)
    return out;
  if (otel) {
    if (!exporter_)
      exporter_ = std::make_shared<otlp_exporter>(s.opentelemetry, ids_);
    out->sink = exporter_;
    return out;
  }
  if (s.file.empty() || s.rate == 0)
    return out;
  auto& writer = files_[s.file];
  if (!writer)
    writer = std::make_shared<trace_file_writer>(s.file, ids_);
  out->sink = writer->open_stream(s.log_frequency, s.count);
  return out;
}

void tracer::rebuild_samplers() {
  global_sampler_ = make_sampler(global_);
  for (auto& [name, entry] : models_)
    entry.own = entry.overrides.empty()
                  ? nullptr
                  : make_sampler(runtime::tracing::merge(global_, entry.overrides));
}

void tracer::refresh_active() {
  bool any = !closed_ && global_sampler_->may_sample();
  for (const auto& [name, entry] : models_)
    any = any || (!closed_ && entry.own && entry.own->may_sample());
  active_.store(any, std::memory_order_relaxed);
  if (any != counted_) {
    runtime::count_active_tracer(any ? 1 : -1);
    counted_ = any;
  }
}

runtime::request_trace_ptr tracer::sample_slow(const std::string& model, bool propagated) {
  std::shared_ptr<sampler> s;
  {
    std::lock_guard<std::mutex> guard{mu_};
    auto it = models_.find(model);
    s = it != models_.end() && it->second.own ? it->second.own : global_sampler_;
  }
  if (!s->may_sample())
    return nullptr;
  bool forced = propagated && s->settings.mode == trace_mode::opentelemetry;
  {
    std::lock_guard<std::mutex> guard{s->mu};
    bool sampled = s->left != 0 && s->settings.rate != 0 && ++s->seen % s->settings.rate == 0;
    if (!sampled && !forced)
      return nullptr;
    if (sampled && s->left > 0)
      --s->left;
  }
  // Counted until it reached its sink (its deleter runs after the
  // destructor handed it over), so that flush() can wait for it.
  live_->fetch_add(1, std::memory_order_relaxed);
  return runtime::request_trace_ptr{new runtime::request_trace(s->sink, s->level, model),
                                    [live = live_](runtime::request_trace* t) {
                                      delete t;
                                      live->fetch_sub(1, std::memory_order_release);
                                    }};
}

trace_settings tracer::settings(const std::string& model) const {
  std::shared_ptr<sampler> s;
  {
    std::lock_guard<std::mutex> guard{mu_};
    auto it = model.empty() ? models_.end() : models_.find(model);
    s = it != models_.end() && it->second.own ? it->second.own : global_sampler_;
  }
  // As Triton reports it: the count is what is left of it.
  auto out = s->settings;
  std::lock_guard<std::mutex> guard{s->mu};
  out.count = s->left;
  return out;
}

runtime::result<trace_settings>
tracer::update(const std::string& model, const runtime::tracing::trace_settings_update& u) {
  std::lock_guard<std::mutex> guard{mu_};
  if (model.empty()) {
    auto next = runtime::tracing::apply_global(global_, startup_, u);
    if (!next)
      return next.error();
    global_ = std::move(*next);
    rebuild_samplers();
    refresh_active();
    return global_;
  }
  auto it = models_.find(model);
  auto next = runtime::tracing::apply_model(
    it != models_.end() ? it->second.overrides : runtime::tracing::trace_overrides{}, global_, u);
  if (!next)
    return next.error();
  auto merged = runtime::tracing::merge(global_, *next);
  if (next->empty()) {
    // Nothing of its own is left: the model follows the global settings.
    if (it != models_.end())
      models_.erase(it);
  } else {
    auto& entry = models_[model];
    entry.overrides = std::move(*next);
    entry.own = make_sampler(merged);
  }
  refresh_active();
  return merged;
}

void tracer::flush() {
  // The traces of requests that finished a moment ago may still be held by
  // their jobs on another thread: wait for them (not for ever: a request
  // that never ends keeps its trace).
  using clock = std::chrono::steady_clock;
  auto give_up = clock::now() + std::chrono::seconds{10};
  while (live_->load(std::memory_order_acquire) > 0 && clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  std::map<std::string, std::shared_ptr<trace_file_writer>> files;
  std::shared_ptr<otlp_exporter> exporter;
  {
    std::lock_guard<std::mutex> guard{mu_};
    files = files_;
    exporter = exporter_;
  }
  for (auto& [path, writer] : files)
    writer->flush();
  if (exporter)
    exporter->flush();
}

void tracer::close() {
  std::map<std::string, std::shared_ptr<trace_file_writer>> files;
  std::shared_ptr<otlp_exporter> exporter;
  {
    std::lock_guard<std::mutex> guard{mu_};
    if (closed_)
      return;
    closed_ = true;
    refresh_active();
    // The samplers let go of their streams, which hand their held traces
    // to the writers before these close.
    rebuild_samplers();
    files = files_;
    exporter = exporter_;
  }
  // A trace still held by a request that outlives the stop finds its
  // writer closed and is counted as dropped.
  for (auto& [path, writer] : files)
    writer->close();
  if (exporter)
    exporter->close();
}

} // namespace conch::services
