#pragma once

// The process-global logger: its settings, its two sinks (standard error or
// a log file, and an optional callback) and the function that writes a line.
// Every Conch log line, C++ or Python, goes through `write`.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "conch/runtime/logging/log_level.hpp"
#include "conch/runtime/logging/log_settings.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/status.hpp"

namespace conch::runtime::logging {

/// Receives every line written while it is installed: the level, the base
/// name of the source file, the source line, the timestamp as the line shows
/// it, and the message, control characters escaped as in the written line.
/// Called on the thread that logs, outside the logger's locks; exceptions it
/// throws are swallowed. A line the callback itself logs is written to the
/// file but not handed to the callback again.
using log_callback = std::function<void(log_level level, std::string_view file, int line,
                                        std::string_view timestamp, std::string_view message)>;

namespace detail {

/// The switches every log statement reads; constant-initialised, so reading
/// them is one relaxed load even during static initialisation.
struct log_switches {
  std::atomic<bool> info{true};
  std::atomic<bool> warn{true};
  std::atomic<bool> error{true};
  std::atomic<uint32_t> verbose{0};
  std::atomic<uint8_t> format{0};
};

extern log_switches switches;

} // namespace detail

/// True when lines of `level` are written (verbose: at verbose level 1).
/// One relaxed atomic load. Thread-safe.
inline bool is_on(log_level level) noexcept {
  constexpr auto relaxed = std::memory_order_relaxed;
  switch (level) {
    case log_level::info:
      return detail::switches.info.load(relaxed);
    case log_level::warn:
      return detail::switches.warn.load(relaxed);
    case log_level::error:
      return detail::switches.error.load(relaxed);
    default:
      return detail::switches.verbose.load(relaxed) > 0;
  }
}

/// True when verbose lines of verbosity `level` (1 or more) are written.
/// One relaxed atomic load. Thread-safe.
inline bool verbose_on(uint32_t level) noexcept {
  return detail::switches.verbose.load(std::memory_order_relaxed) >= level;
}

/// The current format of log lines. Thread-safe.
inline log_format current_format() noexcept {
  return static_cast<log_format>(detail::switches.format.load(std::memory_order_relaxed));
}

/// Writes one line to the file (or standard error), then hands it to the
/// callback. Control characters in `file` and `message` (a CR or LF a client
/// put into a model name, say) are escaped for both (escape_controls): one
/// call is one line. Does not check the level: callers check `is_on` first
/// (the CONCH_LOG_* macros do). Lines of concurrent writers never
/// interleave. Never throws. Thread-safe.
void write(log_level level, std::string_view file, int line, std::string_view message) noexcept;

/// The current settings. Thread-safe.
log_settings current_settings();

/// Applies `update` and returns the settings that result; INVALID_ARG, and
/// nothing changed, when log_format is neither "default" nor "ISO8601".
/// Thread-safe.
result<log_settings> apply_settings(const log_settings_update& update);

/// Sends lines to the file at `path` (appending; created when missing), or
/// to standard error when `path` is empty. When the file cannot be opened
/// the current output is kept, an error line is written to it and
/// INVALID_ARG returned. Thread-safe.
status set_log_file(const std::string& path);

/// Installs `callback` (an empty function removes it). A callback being
/// called when it is replaced finishes that call. Thread-safe.
void set_log_callback(log_callback callback);

/// Marks the calling thread, for its scope, as running the log callback:
/// lines it logs meanwhile are written but not handed to the callback again.
/// For a callback that hands a line on to another thread and runs it there.
class callback_scope {
 public:
  callback_scope() noexcept;
  ~callback_scope();
  callback_scope(const callback_scope&) = delete;
  callback_scope& operator=(const callback_scope&) = delete;

 private:
  bool outer_;
};

} // namespace conch::runtime::logging
