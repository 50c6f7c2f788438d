#include "conch/runtime/logging/log_level.hpp"

namespace conch::runtime::logging {

char level_letter(log_level level) noexcept {
  switch (level) {
    case log_level::error:
      return 'E';
    case log_level::warn:
      return 'W';
    default:
      return 'I';
  }
}

std::string_view format_name(log_format format) noexcept {
  return format == log_format::iso8601 ? "ISO8601" : "default";
}

std::optional<log_format> parse_format(std::string_view name) noexcept {
  if (name == "default")
    return log_format::standard;
  if (name == "ISO8601")
    return log_format::iso8601;
  return std::nullopt;
}

} // namespace conch::runtime::logging
