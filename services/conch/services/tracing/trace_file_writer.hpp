#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "conch/runtime/request_trace.hpp"

namespace conch::services {

class trace_stream;

/// Writes Triton-mode traces into one trace file, on a thread of its own,
/// so the request path only queues them. Each set of trace settings that
/// writes here has a trace_stream, the sink of its traces; the stream's
/// log frequency and count decide where its traces go, as Triton's do:
/// - log frequency N > 0: every N traces make an indexed file of their own,
///   `path.0`, `path.1`, ... (a complete JSON array each); the last few are
///   written when the stream ends (its settings changed, or the server
///   stopped);
/// - else a count N > 0: the N traces make an indexed file once all are in;
/// - else: the trace goes into `path` itself, one JSON array that grows as
///   traces come (Triton holds them in memory until it shuts down) and is
///   closed by close().
/// At most `max_queued` traces wait; more are dropped, counted and logged.
/// Thread-safe; close() and destruction are the owner's.
class trace_file_writer : public std::enable_shared_from_this<trace_file_writer> {
 public:
  trace_file_writer(std::string path, std::shared_ptr<std::atomic<uint64_t>> ids,
                    size_t max_queued = 65536);
  ~trace_file_writer();

  trace_file_writer(const trace_file_writer&) = delete;
  trace_file_writer& operator=(const trace_file_writer&) = delete;

  /// A stream for a set of settings with this log frequency and count.
  std::shared_ptr<trace_stream> open_stream(uint32_t log_frequency, int32_t count);

  /// Waits until every trace queued so far is written.
  void flush();

  /// Writes what is queued, closes `path` and ends the thread. Idempotent.
  void close();

  /// Traces dropped: the queue was full, the writer closed, or the file
  /// could not be written.
  uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_relaxed); }

  const std::string& path() const noexcept { return path_; }

 private:
  friend class trace_stream;

  struct item {
    std::shared_ptr<trace_stream> stream;
    std::optional<runtime::trace_record> record;
    // A stream that ended: the traces it still held, and its frequency.
    std::vector<std::string> rest;
    uint32_t rest_frequency = 0;
  };

  void enqueue(item&& it, size_t traces) noexcept;
  void run();
  void process(item& it);
  void append_plain(const std::string& text);
  void write_indexed(const std::vector<std::string>& traces);
  void drop(size_t n) noexcept { dropped_.fetch_add(n, std::memory_order_relaxed); }

  const std::string path_;
  const std::shared_ptr<std::atomic<uint64_t>> ids_;
  const size_t max_queued_;
  std::atomic<uint64_t> dropped_{0};

  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<item> queue_;  // guarded by mu_
  // Every stream opened, to write what they hold when the writer closes
  // while a request still holds one. Guarded by mu_.
  std::vector<std::weak_ptr<trace_stream>> streams_;
  size_t queued_ = 0;       // traces in queue_, guarded by mu_
  bool closing_ = false;    // guarded by mu_
  bool writing_ = false;    // guarded by mu_
  bool ended_ = false;      // guarded by mu_
  std::thread thread_;

  // The writer thread's own.
  std::FILE* plain_ = nullptr;
  bool plain_failed_ = false;
  uint32_t next_index_ = 0;
};

/// The sink of one set of trace settings in a trace_file_writer.
class trace_stream final : public runtime::trace_sink,
                           public std::enable_shared_from_this<trace_stream> {
 public:
  trace_stream(std::shared_ptr<trace_file_writer> writer, uint32_t log_frequency, int32_t count)
    : writer_(std::move(writer)), log_frequency_(log_frequency), count_(count) {}
  ~trace_stream() override;

  void submit(runtime::trace_record&& record) noexcept override;
  uint64_t next_id() noexcept override;

 private:
  friend class trace_file_writer;

  const std::shared_ptr<trace_file_writer> writer_;
  const uint32_t log_frequency_;
  const int32_t count_;
  // The writer thread's own: traces held for the next indexed file, and
  // how many traces have come.
  std::vector<std::string> held_;
  int64_t arrived_ = 0;
};

} // namespace conch::services
