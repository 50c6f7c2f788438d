#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "conch/services/tracing/http_post.hpp"
#include "conch/runtime/request_trace.hpp"
#include "conch/runtime/tracing/trace_settings.hpp"

namespace conch::services {

/// The sink of OpenTelemetry-mode traces: turns each finished trace into
/// spans (otlp_spans.hpp) and exports them by OTLP over HTTP (protobuf) to
/// the settings' URL from a thread of its own, as a batch span processor
/// does: a batch goes when `bsp_max_export_batch_size` traces wait or
/// `bsp_schedule_delay` passed; past `bsp_max_queue_size` waiting traces,
/// more are dropped and counted. A failed export is logged and its traces
/// dropped. close() exports what waits, each attempt bounded by a short
/// timeout, so a stop never waits on a collector for long.
class otlp_exporter final : public runtime::trace_sink {
 public:
  otlp_exporter(runtime::tracing::otel_settings settings,
                std::shared_ptr<std::atomic<uint64_t>> ids);
  ~otlp_exporter() override;

  otlp_exporter(const otlp_exporter&) = delete;
  otlp_exporter& operator=(const otlp_exporter&) = delete;

  void submit(runtime::trace_record&& record) noexcept override;
  uint64_t next_id() noexcept override;

  /// Exports every trace that waits now, and waits until that is done.
  void flush();

  /// Exports what waits and ends the thread. Idempotent; the owner's.
  void close();

  /// Traces dropped: the queue was full, or their export failed.
  uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

 private:
  void run();
  // False when the export failed.
  bool export_batch(std::deque<runtime::trace_record>&& batch);

  const runtime::tracing::otel_settings settings_;
  const std::shared_ptr<std::atomic<uint64_t>> ids_;
  runtime::result<http_endpoint> endpoint_;
  const int64_t unix_offset_;
  std::atomic<uint64_t> dropped_{0};

  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<runtime::trace_record> queue_;  // guarded by mu_
  bool closing_ = false;                     // guarded by mu_
  uint64_t flush_asked_ = 0;                 // guarded by mu_
  uint64_t flush_done_ = 0;                  // guarded by mu_
  bool ended_ = false;                       // guarded by mu_
  std::thread thread_;
};

} // namespace conch::services
