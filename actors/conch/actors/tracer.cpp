#include "conch/actors/tracer.hpp"

#include "conch/actors/otlp_exporter.hpp"
#include "conch/actors/trace_file_writer.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

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

  bool may_sample() const { return settings.level != 0 && sink != nullptr; }
};

tracer::tracer(trace_settings global)
  : ids_(std::make_shared<std::atomic<uint64_t>>(0)),
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
  if (s.level == 0 || closed_)
    return out;
  if (s.mode == trace_mode::opentelemetry) {
    if ((s.level & runtime::trace_tensors) != 0)
      CONCH_LOG_WARN << "Tensor level tracing is not supported by the mode: opentelemetry";
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
  // OpenTelemetry mode records timestamps only.
  auto level = s->settings.mode == trace_mode::opentelemetry
                 ? s->settings.level & runtime::trace_timestamps
                 : s->settings.level;
  return std::make_shared<runtime::request_trace>(s->sink, level, model);
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

} // namespace conch::actors
