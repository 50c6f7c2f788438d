#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "conch/runtime/result.hpp"

namespace conch::actors {

/// The logging settings of a server, as the logging extension reports them.
struct log_settings {
  /// The file logs go to; empty for standard error.
  std::string log_file;
  /// Whether informational messages are logged.
  bool log_info = true;
  /// Whether warnings are logged.
  bool log_warning = true;
  /// Whether errors are logged.
  bool log_error = true;
  /// The verbosity of verbose logging; 0 turns it off.
  uint32_t log_verbose_level = 0;
  /// "default" or "ISO8601".
  std::string log_format = "default";
};

/// A change of the logging settings: only the fields holding a value change.
struct log_settings_change {
  std::optional<bool> log_info;
  std::optional<bool> log_warning;
  std::optional<bool> log_error;
  std::optional<uint32_t> log_verbose_level;
  std::optional<std::string> log_format;
};

/// The logging settings a server owns and its frontends read and change.
/// Applying them to log output is not done yet (TODO issue 4: logging).
/// Thread-safe.
class log_settings_store {
 public:
  /// A copy of the current settings.
  log_settings get() const;

  /// Applies `change` and returns the resulting settings; INVALID_ARG, and
  /// nothing changed, when log_format is neither "default" nor "ISO8601".
  runtime::result<log_settings> apply(const log_settings_change& change);

 private:
  mutable std::mutex mutex_;
  log_settings settings_;  // guarded by mutex_
};

} // namespace conch::actors
