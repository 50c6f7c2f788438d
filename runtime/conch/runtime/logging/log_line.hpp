#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "conch/runtime/logging/log_level.hpp"

namespace conch::runtime::logging {

/// The timestamp of a line written at `at`, in UTC: `MMDD hh:mm:ss.uuuuuu`
/// for the default format, `YYYY-MM-DDThh:mm:ssZ` for ISO8601.
std::string log_timestamp(log_format format, std::chrono::system_clock::time_point at);

/// The last component of a source path ("a/b/c.cpp" -> "c.cpp").
std::string_view base_name(std::string_view path) noexcept;

/// `text` with every control byte (below 0x20, and 0x7f) written as an
/// escape: `\n`, `\r`, `\t`, or `\xNN` for the others. Whatever a client
/// put into a message (a model name, a request id), its line stays one line
/// of the log. `text` itself when it holds none; otherwise the escaped text,
/// kept in `storage`.
std::string_view escape_controls(std::string_view text, std::string& storage);

/// What a log line says and where it was said.
struct log_record {
  /// The line's level.
  log_level level = log_level::info;
  /// The source file (any path; the line shows its base name).
  std::string_view file;
  /// The source line.
  int line = 0;
  /// The message, without a trailing newline.
  std::string_view message;
};

/// One line of the log, without the newline, laid out as upstream lays it out:
///   default: `<L><timestamp> <pid> <file>:<line>] <message>`
///   ISO8601: `<timestamp> <L> <pid> <file>:<line>] <message>`
/// where <L> is the level letter and <pid> the process id.
std::string format_line(log_format format, std::string_view timestamp, uint32_t pid,
                        const log_record& record);

} // namespace conch::runtime::logging
