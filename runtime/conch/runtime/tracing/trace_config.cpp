// Triton's `--trace-config` syntax (trace_settings.hpp: parse_trace_config).

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>

#include "conch/runtime/tracing/trace_settings.hpp"

namespace conch::runtime::tracing {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// One `<setting>=<value>` of a section, in the order given.
struct entry {
  std::string setting;
  std::string value;
};

// Parses a whole decimal number in [lo, hi], as Triton's option parser
// does; `what` names the option in the error.
result<int64_t> number(const std::string& what, const std::string& value, int64_t lo,
                       int64_t hi) {
  const char* begin = value.c_str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(begin, &end, 10);
  std::string prefix = "Bad option: \"--trace-config " + what + "\".\n";
  if (end == begin || *end != '\0')
    return invalid_argument(prefix + "Invalid option value. Got " + value);
  if (errno == ERANGE || v < lo || v > hi)
    return invalid_argument(prefix + "Provided option value is out of bound. Got " + value);
  return static_cast<int64_t>(v);
}

status apply_level(const std::string& value, uint32_t& level, bool& off) {
  auto v = lower(value);
  if (v == "false" || v == "off")
    off = true;
  else if (v == "true" || v == "on" || v == "min" || v == "max" || v == "timestamps")
    level |= trace_timestamps;
  else if (v == "tensors")
    level |= trace_tensors;
  else
    return invalid_argument("Bad option: \"--trace-config level\".\n"
                            "invalid value for trace level option: " + v);
  return status::ok();
}

result<trace_mode> mode_named(const std::string& name, const std::string& what) {
  auto m = lower(name);
  if (m == "triton")
    return trace_mode::triton;
  if (m == "opentelemetry")
    return trace_mode::opentelemetry;
  return invalid_argument(what + "invalid value for trace mode option: " + m
                          + ". Available options are \"triton\" and \"opentelemetry\"");
}

status apply_global(const std::vector<entry>& global, trace_settings& s) {
  uint32_t level = 0;
  bool off = false;
  bool level_given = false;
  for (const auto& e : global) {
    if (e.setting == "rate") {
      auto v = number("rate", e.value, 0, std::numeric_limits<uint32_t>::max());
      if (!v)
        return v.error();
      s.rate = static_cast<uint32_t>(*v);
    } else if (e.setting == "count") {
      auto v = number("count", e.value, -1, std::numeric_limits<int32_t>::max());
      if (!v)
        return v.error();
      s.count = static_cast<int32_t>(*v);
    } else if (e.setting == "level") {
      level_given = true;
      CONCH_RUNTIME_RETURN_IF_ERROR(apply_level(e.value, level, off));
    } else if (e.setting == "mode") {
      auto m = mode_named(e.value, "Bad option: \"--trace-config mode\".\n");
      if (!m)
        return m.error();
      s.mode = *m;
    }
  }
  if (level_given)
    s.level = off ? 0 : level;
  return status::ok();
}

status apply_triton(const std::vector<entry>& section, trace_settings& s) {
  for (const auto& e : section) {
    if (e.setting == "file") {
      s.file = e.value;
    } else if (e.setting == "log-frequency") {
      auto v = number("triton,log-frequency", e.value, 0, std::numeric_limits<uint32_t>::max());
      if (!v)
        return v.error();
      s.log_frequency = static_cast<uint32_t>(*v);
    }
  }
  return status::ok();
}

status apply_opentelemetry(const std::vector<entry>& section, trace_settings& s) {
  auto& o = s.opentelemetry;
  for (const auto& e : section) {
    auto bsp = [&](const char* name, uint32_t& field) -> status {
      auto v = number(std::string{"opentelemetry,"} + name, e.value, 0,
                      std::numeric_limits<uint32_t>::max());
      if (!v)
        return v.error();
      field = static_cast<uint32_t>(*v);
      return status::ok();
    };
    if (e.setting == "url") {
      o.url = e.value;
    } else if (e.setting == "resource") {
      auto eq = e.value.find('=');
      if (eq == std::string::npos || eq == 0)
        return invalid_argument("Bad option: \"--trace-config opentelemetry,resource\".\n"
                                "expected <key>=<value>, got " + e.value);
      auto key = e.value.substr(0, eq);
      auto value = e.value.substr(eq + 1);
      auto it = std::find_if(o.resource.begin(), o.resource.end(),
                             [&](const auto& kv) { return kv.first == key; });
      if (it != o.resource.end())
        it->second = value;
      else
        o.resource.emplace_back(key, value);
    } else if (e.setting == "bsp_max_queue_size") {
      CONCH_RUNTIME_RETURN_IF_ERROR(bsp("bsp_max_queue_size", o.bsp_max_queue_size));
    } else if (e.setting == "bsp_schedule_delay") {
      CONCH_RUNTIME_RETURN_IF_ERROR(bsp("bsp_schedule_delay", o.bsp_schedule_delay_ms));
    } else if (e.setting == "bsp_max_export_batch_size") {
      CONCH_RUNTIME_RETURN_IF_ERROR(
        bsp("bsp_max_export_batch_size", o.bsp_max_export_batch_size));
    }
  }
  return status::ok();
}

} // namespace

status parse_trace_config(const std::vector<std::string>& args, trace_settings& settings) {
  const std::string wrap = "Bad option: \"--trace-config\".\n";
  std::vector<entry> global;
  std::map<trace_mode, std::vector<entry>> sections;
  for (const auto& arg : args) {
    auto comma = arg.find(',');
    std::string mode_name;
    std::string rest = arg;
    if (comma != std::string::npos) {
      mode_name = arg.substr(0, comma);
      rest = arg.substr(comma + 1);
      if (mode_name.empty())
        return invalid_argument(wrap
                                + "No trace mode specified. --trace-config option format is "
                                  "<trace mode>,<setting>=<value> or <setting>=<value>. Got "
                                + arg);
    }
    auto eq = rest.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == rest.size())
      return invalid_argument(wrap
                              + "--trace-config option format is "
                                "'<trace mode>,<setting>=<value>'. Got " + arg);
    entry e{rest.substr(0, eq), rest.substr(eq + 1)};
    if (mode_name.empty()) {
      global.push_back(std::move(e));
      continue;
    }
    auto mode = mode_named(mode_name, wrap);
    if (!mode)
      return mode.error();
    sections[*mode].push_back(std::move(e));
  }
  CONCH_RUNTIME_RETURN_IF_ERROR(apply_global(global, settings));
  // Only the section of the mode in force counts.
  if (settings.mode == trace_mode::triton)
    return apply_triton(sections[trace_mode::triton], settings);
  return apply_opentelemetry(sections[trace_mode::opentelemetry], settings);
}

} // namespace conch::runtime::tracing
