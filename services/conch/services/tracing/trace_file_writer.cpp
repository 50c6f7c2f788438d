#include "conch/services/tracing/trace_file_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/tracing/trace_json.hpp"

namespace conch::services {

// -- trace_stream ---------------------------------------------------------------

trace_stream::~trace_stream() {
  if (held_.empty())
    return;
  trace_file_writer::item it;
  it.rest = std::move(held_);
  it.rest_frequency = log_frequency_;
  auto n = it.rest.size();
  writer_->enqueue(std::move(it), n);
}

void trace_stream::submit(runtime::trace_record&& record) noexcept {
  try {
    trace_file_writer::item it;
    it.stream = shared_from_this();
    it.record = std::move(record);
    writer_->enqueue(std::move(it), 1);
  } catch (...) {
    writer_->drop(1);
  }
}

uint64_t trace_stream::next_id() noexcept {
  return writer_->ids_->fetch_add(1, std::memory_order_relaxed) + 1;
}

// -- trace_file_writer ------------------------------------------------------------

trace_file_writer::trace_file_writer(std::string path,
                                     std::shared_ptr<std::atomic<uint64_t>> ids,
                                     size_t max_queued)
  : path_(std::move(path)), ids_(std::move(ids)), max_queued_(max_queued) {
  thread_ = std::thread{[this] { run(); }};
}

trace_file_writer::~trace_file_writer() { close(); }

std::shared_ptr<trace_stream> trace_file_writer::open_stream(uint32_t log_frequency,
                                                             int32_t count) {
  auto stream = std::make_shared<trace_stream>(shared_from_this(), log_frequency, count);
  std::lock_guard<std::mutex> guard{mu_};
  streams_.erase(std::remove_if(streams_.begin(), streams_.end(),
                                [](const auto& w) { return w.expired(); }),
                 streams_.end());
  streams_.push_back(stream);
  return stream;
}

void trace_file_writer::enqueue(item&& it, size_t traces) noexcept {
  try {
    std::lock_guard<std::mutex> guard{mu_};
    // A stream's remaining traces are taken even past the limit: the
    // stream held them already.
    if (ended_ || (it.record && queued_ >= max_queued_)) {
      drop(traces);
      return;
    }
    queue_.push_back(std::move(it));
    queued_ += traces;
  } catch (...) {
    drop(traces);
    return;
  }
  wake_.notify_one();
}

void trace_file_writer::flush() {
  std::unique_lock<std::mutex> lock{mu_};
  idle_.wait(lock, [this] { return (queue_.empty() && !writing_) || ended_; });
}

void trace_file_writer::close() {
  {
    std::lock_guard<std::mutex> guard{mu_};
    closing_ = true;
  }
  wake_.notify_one();
  if (!thread_.joinable())
    return;
  thread_.join();
  if (auto n = dropped(); n > 0)
    CONCH_LOG_WARN << "trace file '" << path_ << "': " << n << " traces were dropped";
}

void trace_file_writer::run() {
  std::unique_lock<std::mutex> lock{mu_};
  for (;;) {
    wake_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty())
      break;
    auto batch = std::move(queue_);
    queue_.clear();
    queued_ = 0;
    writing_ = true;
    lock.unlock();
    for (auto& it : batch)
      process(it);
    if (plain_ != nullptr)
      std::fflush(plain_);
    // The traced tensors' bytes, and maybe the last hold of a stream, go
    // here, off the lock.
    batch.clear();
    lock.lock();
    writing_ = false;
    idle_.notify_all();
  }
  ended_ = true;
  auto streams = streams_;
  lock.unlock();
  // Streams a request still holds: what they hold back goes now, as the
  // rest of an ended stream would.
  for (auto& weak : streams)
    if (auto s = weak.lock()) {
      item rest;
      rest.rest = std::move(s->held_);
      rest.rest_frequency = s->log_frequency_;
      s->held_.clear();
      process(rest);
    }
  if (plain_ != nullptr) {
    std::fputs("]", plain_);
    std::fclose(plain_);
    plain_ = nullptr;
  }
  lock.lock();
  idle_.notify_all();
}

void trace_file_writer::process(item& it) {
  if (!it.record) {
    if (it.rest_frequency != 0)
      write_indexed(it.rest);
    else
      for (const auto& text : it.rest)
        append_plain(text);
    return;
  }
  auto& s = *it.stream;
  auto text = runtime::tracing::trace_json(*it.record);
  ++s.arrived_;
  if (s.log_frequency_ != 0) {
    s.held_.push_back(std::move(text));
    if (s.held_.size() >= s.log_frequency_) {
      write_indexed(s.held_);
      s.held_.clear();
    }
  } else if (s.count_ > 0) {
    s.held_.push_back(std::move(text));
    if (s.arrived_ >= s.count_) {
      write_indexed(s.held_);
      s.held_.clear();
    }
  } else {
    append_plain(text);
  }
}

void trace_file_writer::append_plain(const std::string& text) {
  if (plain_ == nullptr) {
    if (plain_failed_) {
      drop(1);
      return;
    }
    plain_ = std::fopen(path_.c_str(), "w");
    if (plain_ == nullptr) {
      plain_failed_ = true;  // logged once; later traces count as dropped
      CONCH_LOG_ERROR << "failed creating trace file: " << path_ << ": " << std::strerror(errno);
      drop(1);
      return;
    }
    std::fputs("[", plain_);
  } else {
    std::fputs(",", plain_);
  }
  std::fwrite(text.data(), 1, text.size(), plain_);
}

void trace_file_writer::write_indexed(const std::vector<std::string>& traces) {
  if (traces.empty())
    return;
  auto name = path_ + "." + std::to_string(next_index_++);
  std::FILE* f = std::fopen(name.c_str(), "w");
  if (f == nullptr) {
    CONCH_LOG_ERROR << "failed creating trace file: " << name << ": " << std::strerror(errno);
    drop(traces.size());
    return;
  }
  std::fputs("[", f);
  for (size_t i = 0; i < traces.size(); ++i) {
    if (i != 0)
      std::fputs(",", f);
    std::fwrite(traces[i].data(), 1, traces[i].size(), f);
  }
  std::fputs("]", f);
  std::fclose(f);
}

} // namespace conch::services
