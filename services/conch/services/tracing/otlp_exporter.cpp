#include "conch/services/tracing/otlp_exporter.hpp"

#include <algorithm>

#include "conch/services/tracing/otlp_spans.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::services {

namespace {

// The longest a connect, a send or the wait for an answer may take.
constexpr std::chrono::milliseconds export_timeout{2000};

} // namespace

otlp_exporter::otlp_exporter(runtime::tracing::otel_settings settings,
                             std::shared_ptr<std::atomic<uint64_t>> ids)
  : settings_(std::move(settings)), ids_(std::move(ids)),
    endpoint_(parse_http_url(settings_.url)), unix_offset_(steady_to_unix_offset_ns()) {
  if (!endpoint_)
    CONCH_LOG_ERROR << "OpenTelemetry traces cannot be exported: "
                    << endpoint_.error().message();
  thread_ = std::thread{[this] { run(); }};
}

otlp_exporter::~otlp_exporter() { close(); }

uint64_t otlp_exporter::next_id() noexcept {
  return ids_->fetch_add(1, std::memory_order_relaxed) + 1;
}

void otlp_exporter::submit(runtime::trace_record&& record) noexcept {
  bool full_batch = false;
  try {
    std::lock_guard<std::mutex> guard{mu_};
    if (ended_ || queue_.size() >= std::max<uint32_t>(1, settings_.bsp_max_queue_size)) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    queue_.push_back(std::move(record));
    full_batch = queue_.size() >= std::max<uint32_t>(1, settings_.bsp_max_export_batch_size);
  } catch (...) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (full_batch)
    wake_.notify_one();
}

void otlp_exporter::flush() {
  std::unique_lock<std::mutex> lock{mu_};
  auto ticket = ++flush_asked_;
  wake_.notify_one();
  idle_.wait(lock, [&] { return flush_done_ >= ticket || ended_; });
}

void otlp_exporter::close() {
  {
    std::lock_guard<std::mutex> guard{mu_};
    closing_ = true;
  }
  wake_.notify_one();
  if (!thread_.joinable())
    return;
  thread_.join();
  if (auto n = dropped(); n > 0)
    CONCH_LOG_WARN << "OpenTelemetry exporter: " << n << " traces were dropped";
}

void otlp_exporter::run() {
  // At least a millisecond: a delay of 0 would spin.
  const auto delay =
    std::chrono::milliseconds{std::max<uint32_t>(1, settings_.bsp_schedule_delay_ms)};
  const size_t batch_size = std::max<uint32_t>(1, settings_.bsp_max_export_batch_size);
  std::unique_lock<std::mutex> lock{mu_};
  for (;;) {
    wake_.wait_for(lock, delay, [&] {
      return closing_ || queue_.size() >= batch_size || flush_asked_ > flush_done_;
    });
    auto flushing = flush_asked_;
    // Everything that waits goes, a batch at a time.
    while (!queue_.empty()) {
      auto n = std::min(batch_size, queue_.size());
      std::deque<runtime::trace_record> batch{std::make_move_iterator(queue_.begin()),
                                              std::make_move_iterator(queue_.begin() + n)};
      queue_.erase(queue_.begin(), queue_.begin() + n);
      lock.unlock();
      bool sent = export_batch(std::move(batch));
      lock.lock();
      if (!sent && closing_) {
        // The collector is gone: a stop does not wait for it batch after
        // batch.
        dropped_.fetch_add(queue_.size(), std::memory_order_relaxed);
        queue_.clear();
      }
    }
    flush_done_ = flushing;
    idle_.notify_all();
    if (closing_)
      break;
  }
  ended_ = true;
  idle_.notify_all();
}

bool otlp_exporter::export_batch(std::deque<runtime::trace_record>&& batch) {
  if (!endpoint_) {
    dropped_.fetch_add(batch.size(), std::memory_order_relaxed);
    return false;
  }
  google::protobuf::RepeatedPtrField<otlp::Span> spans;
  for (const auto& record : batch)
    append_spans(record, unix_offset_, spans);
  auto body = export_request(settings_.resource, std::move(spans)).SerializeAsString();
  auto st = http_post(*endpoint_, "application/x-protobuf", body, export_timeout);
  if (!st) {
    dropped_.fetch_add(batch.size(), std::memory_order_relaxed);
    CONCH_LOG_WARN << "OpenTelemetry export of " << batch.size()
                   << " traces failed: " << st.message();
    return false;
  }
  return true;
}

} // namespace conch::services
