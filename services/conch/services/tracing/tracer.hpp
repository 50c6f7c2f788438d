#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "conch/runtime/request_trace.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/tracing/trace_settings.hpp"

namespace conch::services {

class trace_file_writer;
class otlp_exporter;

/// A server's trace settings, global and per model, and the sampling they
/// imply (Triton's trace manager). Frontends ask sample() for each request
/// they admit; while no setting traces, that is one relaxed load. Traces go
/// to trace_file_writers (triton mode) or to an otlp_exporter
/// (opentelemetry mode) it owns; close() finishes them (the server's stop).
/// Thread-safe.
class tracer {
 public:
  /// `global` must have passed runtime::tracing::validate.
  explicit tracer(runtime::tracing::trace_settings global);
  ~tracer();

  tracer(const tracer&) = delete;
  tracer& operator=(const tracer&) = delete;

  /// A trace for the next request to `model`, when the model's settings
  /// sample it; null otherwise. In opentelemetry mode a request that came
  /// with a W3C trace context (`propagated`) is always traced, as in Triton,
  /// whatever the rate and the count.
  runtime::request_trace_ptr sample(const std::string& model, bool propagated = false) {
    if (!active_.load(std::memory_order_relaxed))
      return nullptr;
    return sample_slow(model, propagated);
  }

  /// The global settings (model empty), or a model's.
  runtime::tracing::trace_settings settings(const std::string& model) const;

  /// Changes the global settings (model empty), or a model's; returns the
  /// settings that result. Sampling starts over for the settings changed:
  /// the rate's counter and the trace count.
  runtime::result<runtime::tracing::trace_settings>
  update(const std::string& model, const runtime::tracing::trace_settings_update& update);

  /// Waits until the traces of the requests that have finished are written
  /// (or exported): those a request still holds, for up to 10 s, then what
  /// the writers have queued. Traces held back for a log frequency or a
  /// count stay held.
  void flush();

  /// Samples no more, writes the rest and closes the files. Idempotent.
  void close();

 private:
  struct sampler;

  runtime::request_trace_ptr sample_slow(const std::string& model, bool propagated);
  // The rest run under mu_.
  std::shared_ptr<sampler> make_sampler(const runtime::tracing::trace_settings& s);
  void rebuild_samplers();
  void refresh_active();

  const std::shared_ptr<std::atomic<uint64_t>> ids_;
  // Traces sampled and not yet handed to their sinks.
  const std::shared_ptr<std::atomic<int64_t>> live_;
  std::atomic<bool> active_{false};

  mutable std::mutex mu_;
  runtime::tracing::trace_settings global_;
  // The settings at start, which a cleared global setting returns to.
  const runtime::tracing::trace_settings startup_;
  std::shared_ptr<sampler> global_sampler_;
  struct model_entry {
    runtime::tracing::trace_overrides overrides;
    std::shared_ptr<sampler> own;  // null: the global sampler
  };
  std::map<std::string, model_entry, std::less<>> models_;
  std::map<std::string, std::shared_ptr<trace_file_writer>> files_;
  std::shared_ptr<otlp_exporter> exporter_;
  bool counted_ = false;
  bool closed_ = false;
};

} // namespace conch::services
