#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace conch::runtime::logging {

/// The logging settings of the process, as the logging extension reports
/// them (spec: kserve-protocol §1.15).
struct log_settings {
  /// The file log lines go to; empty for standard error.
  std::string log_file;
  /// Whether informational messages are written.
  bool log_info = true;
  /// Whether warnings are written.
  bool log_warning = true;
  /// Whether errors are written.
  bool log_error = true;
  /// The verbosity of verbose messages; 0 turns them off.
  uint32_t log_verbose_level = 0;
  /// "default" or "ISO8601".
  std::string log_format = "default";
};

/// A change of the logging settings: only the fields holding a value change.
/// The log file is not part of it: the network protocols may not move it.
struct log_settings_update {
  /// New value of log_settings::log_info.
  std::optional<bool> log_info;
  /// New value of log_settings::log_warning.
  std::optional<bool> log_warning;
  /// New value of log_settings::log_error.
  std::optional<bool> log_error;
  /// New value of log_settings::log_verbose_level.
  std::optional<uint32_t> log_verbose_level;
  /// New value of log_settings::log_format: "default" or "ISO8601".
  std::optional<std::string> log_format;
};

} // namespace conch::runtime::logging
