#include "conch/runtime/logging/logger.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

#include "conch/runtime/logging/log_line.hpp"

namespace conch::runtime::logging {

namespace detail {

log_switches switches;

} // namespace detail

namespace {

constexpr auto relaxed = std::memory_order_relaxed;

/// What the hot switches do not hold. Never destroyed, so that threads that
/// log while the process exits find it intact.
struct logger_state {
  /// Serialises changes of the settings, so that readers see one whole set.
  std::mutex settings_mutex;
  /// Guards `file` and `file_path`; held while a line is written.
  std::mutex sink_mutex;
  std::FILE* file = nullptr;
  std::string file_path;
  /// Guards `callback`, only long enough to copy the pointer.
  std::mutex callback_mutex;
  std::shared_ptr<const log_callback> callback;
  std::atomic<bool> has_callback{false};
};

logger_state& state() {
  static auto* s = new logger_state;
  return *s;
}

// True on a thread while it runs the callback: a line the callback logs is
// not handed to it again (that would recurse without end).
thread_local bool in_callback = false;

void write_out(logger_state& s, const std::string& text) {
  std::lock_guard<std::mutex> guard{s.sink_mutex};
  std::FILE* out = s.file != nullptr ? s.file : stderr;
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

void call_back(logger_state& s, const log_record& record, std::string_view stamp) {
  if (in_callback || !s.has_callback.load(std::memory_order_acquire))
    return;
  std::shared_ptr<const log_callback> cb;
  {
    std::lock_guard<std::mutex> guard{s.callback_mutex};
    cb = s.callback;
  }
  if (!cb)
    return;
  in_callback = true;
  try {
    (*cb)(record.level, base_name(record.file), record.line, stamp, record.message);
  } catch (...) { // NOLINT(bugprone-empty-catch): a callback's failure must not reach the logger
  }
  in_callback = false;
}

log_settings read_settings(logger_state& s) {
  log_settings out;
  out.log_info = detail::switches.info.load(relaxed);
  out.log_warning = detail::switches.warn.load(relaxed);
  out.log_error = detail::switches.error.load(relaxed);
  out.log_verbose_level = detail::switches.verbose.load(relaxed);
  out.log_format = std::string{format_name(current_format())};
  std::lock_guard<std::mutex> guard{s.sink_mutex};
  out.log_file = s.file_path;
  return out;
}

} // namespace

void write(log_level level, std::string_view file, int line, std::string_view message) noexcept {
  try {
    auto& s = state();
    auto format = current_format();
    auto stamp = log_timestamp(format, std::chrono::system_clock::now());
    // Escaped here, once, for the file and the callback alike: messages
    // carry client text (model names, request ids) that must not start a
    // line of its own.
    std::string escaped_file;
    std::string escaped_message;
    log_record record{level, escape_controls(file, escaped_file), line,
                      escape_controls(message, escaped_message)};
    auto text = format_line(format, stamp, static_cast<uint32_t>(::getpid()), record);
    text.push_back('\n');
    write_out(s, text);
    call_back(s, record, stamp);
  } catch (...) { // NOLINT(bugprone-empty-catch): out of memory; the line is lost
  }
}

log_settings current_settings() {
  auto& s = state();
  std::lock_guard<std::mutex> guard{s.settings_mutex};
  return read_settings(s);
}

result<log_settings> apply_settings(const log_settings_update& update) {
  std::optional<log_format> format;
  if (update.log_format) {
    format = parse_format(*update.log_format);
    if (!format)
      return invalid_argument("invalid log format '" + *update.log_format
                              + "', expecting 'default' or 'ISO8601'");
  }
  auto& s = state();
  std::lock_guard<std::mutex> guard{s.settings_mutex};
  if (update.log_info)
    detail::switches.info.store(*update.log_info, relaxed);
  if (update.log_warning)
    detail::switches.warn.store(*update.log_warning, relaxed);
  if (update.log_error)
    detail::switches.error.store(*update.log_error, relaxed);
  if (update.log_verbose_level)
    detail::switches.verbose.store(*update.log_verbose_level, relaxed);
  if (format)
    detail::switches.format.store(static_cast<uint8_t>(*format), relaxed);
  return read_settings(s);
}

status set_log_file(const std::string& path) {
  std::FILE* opened = nullptr;
  if (!path.empty()) {
    opened = std::fopen(path.c_str(), "a");
    if (opened == nullptr) {
      auto error = invalid_argument("failed to open log file '" + path
                                    + "': " + std::strerror(errno));
      // Written holding no lock: the callback may call back into the logger.
      if (is_on(log_level::error))
        write(log_level::error, __FILE__, __LINE__, error.message());
      return error;
    }
  }
  auto& s = state();
  std::FILE* previous = nullptr;
  {
    std::lock_guard<std::mutex> settings_guard{s.settings_mutex};
    std::lock_guard<std::mutex> guard{s.sink_mutex};
    previous = std::exchange(s.file, opened);
    s.file_path = path;
  }
  if (previous != nullptr)
    std::fclose(previous);
  return status::ok();
}

void set_log_callback(log_callback callback) {
  auto& s = state();
  std::shared_ptr<const log_callback> next;
  if (callback)
    next = std::make_shared<const log_callback>(std::move(callback));
  std::shared_ptr<const log_callback> previous;
  {
    std::lock_guard<std::mutex> guard{s.callback_mutex};
    previous = std::exchange(s.callback, next);
    s.has_callback.store(next != nullptr, std::memory_order_release);
  }
  // `previous` is released here, outside the lock: destroying a callback may
  // run arbitrary code (a Python callable's reference, for example).
}

callback_scope::callback_scope() noexcept : outer_(in_callback) {
  in_callback = true;
}

callback_scope::~callback_scope() {
  in_callback = outer_;
}

} // namespace conch::runtime::logging
