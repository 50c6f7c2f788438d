#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace conch::runtime::logging {

/// The level of a log line. The values are those of upstream's
/// TRITONSERVER_LogLevel, which the Python API's LogLevel repeats.
enum class log_level : uint8_t {
  /// An informational message.
  info = 0,
  /// A warning.
  warn = 1,
  /// An error.
  error = 2,
  /// A verbose message, written when the verbose level is high enough.
  verbose = 3,
};

/// The layout of a log line's prefix. The values are those of upstream's
/// LogFormat.
enum class log_format : uint8_t {
  /// `I1130 02:03:04.123456 1234 file.cc:12] message`.
  standard = 0,
  /// `2026-11-30T02:03:04Z I 1234 file.cc:12] message`.
  iso8601 = 1,
};

/// The letter a line of `level` starts with: E, W or I. Verbose lines are
/// written as I, as upstream writes them.
char level_letter(log_level level) noexcept;

/// "default" or "ISO8601": the names the logging extension uses.
std::string_view format_name(log_format format) noexcept;

/// The format named `name` ("default" or "ISO8601"); nothing for another name.
std::optional<log_format> parse_format(std::string_view name) noexcept;

} // namespace conch::runtime::logging
