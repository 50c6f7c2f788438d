#include "conch/runtime/logging/log_line.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace conch::runtime::logging {

std::string log_timestamp(log_format format, std::chrono::system_clock::time_point at) {
  using namespace std::chrono;
  auto since_epoch = at.time_since_epoch();
  auto secs = duration_cast<seconds>(since_epoch);
  auto micros = duration_cast<microseconds>(since_epoch - secs).count();
  if (micros < 0) { // before 1970: keep the fraction positive
    secs -= seconds{1};
    micros += 1000000;
  }
  std::time_t t = static_cast<std::time_t>(secs.count());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  int n = format == log_format::iso8601
            ? std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                            tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec)
            : std::snprintf(buf, sizeof buf, "%02d%02d %02d:%02d:%02d.%06ld", tm.tm_mon + 1,
                            tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                            static_cast<long>(micros));
  return std::string(buf, n > 0 ? static_cast<size_t>(n) : 0);
}

std::string_view base_name(std::string_view path) noexcept {
  auto slash = path.find_last_of('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

namespace {

bool is_control(char c) noexcept {
  auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

} // namespace

std::string_view escape_controls(std::string_view text, std::string& storage) {
  auto first = std::find_if(text.begin(), text.end(), is_control);
  if (first == text.end())
    return text;
  static constexpr char hex[] = "0123456789abcdef";
  storage.assign(text.begin(), first);
  storage.reserve(text.size() + 16);
  for (auto it = first; it != text.end(); ++it) {
    char c = *it;
    if (!is_control(c)) {
      storage.push_back(c);
      continue;
    }
    storage.push_back('\\');
    switch (c) {
      case '\n': storage.push_back('n'); break;
      case '\r': storage.push_back('r'); break;
      case '\t': storage.push_back('t'); break;
      default: {
        auto byte = static_cast<unsigned char>(c);
        storage.push_back('x');
        storage.push_back(hex[byte >> 4]);
        storage.push_back(hex[byte & 0xf]);
      }
    }
  }
  return storage;
}

std::string format_line(log_format format, std::string_view timestamp, uint32_t pid,
                        const log_record& record) {
  std::string out;
  out.reserve(timestamp.size() + record.file.size() + record.message.size() + 32);
  char letter = level_letter(record.level);
  if (format == log_format::iso8601) {
    out.append(timestamp);
    out.push_back(' ');
    out.push_back(letter);
  } else {
    out.push_back(letter);
    out.append(timestamp);
  }
  out.push_back(' ');
  out.append(std::to_string(pid));
  out.push_back(' ');
  out.append(base_name(record.file));
  out.push_back(':');
  out.append(std::to_string(record.line));
  out.append("] ");
  out.append(record.message);
  return out;
}

} // namespace conch::runtime::logging
