#include "conch/runtime/tracing/trace_settings.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

namespace conch::runtime::tracing {

const char* trace_mode_name(trace_mode m) noexcept {
  return m == trace_mode::opentelemetry ? "opentelemetry" : "triton";
}

trace_settings merge(const trace_settings& global, const trace_overrides& model) {
  auto out = global;
  if (model.level)
    out.level = *model.level;
  if (model.rate)
    out.rate = *model.rate;
  if (model.count)
    out.count = *model.count;
  if (model.log_frequency)
    out.log_frequency = *model.log_frequency;
  return out;
}

namespace {

// Reads a decimal integer as std::stoll does (leading blanks and a sign,
// then digits; what follows them is ignored), within [lo, hi].
result<int64_t> parse_integer(const std::string& key, const std::string& text, int64_t lo,
                              int64_t hi) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(begin, &end, 10);
  if (end == begin)
    return invalid_argument("Unable to parse '" + key + "', got: " + text);
  bool below = v < lo;
  if (below && key == "trace_count" && v >= std::numeric_limits<int32_t>::min())
    return invalid_argument("Unable to parse 'trace_count'. Expecting value >= -1, got:" + text);
  if (errno == ERANGE || below || v > hi)
    return invalid_argument("Unable to parse '" + key + "', value is out of range [ "
                            + std::to_string(lo) + ", " + std::to_string(hi)
                            + " ], got: " + text);
  return static_cast<int64_t>(v);
}

// The one value of a scalar setting.
result<std::string> single(const std::string& key, const std::vector<std::string>& values) {
  if (values.size() != 1)
    return invalid_argument("expect only 1 value for '" + key + "'");
  return values.front();
}

template <class T>
status read_number(const trace_lookup& lookup, const std::string& key, int64_t lo, int64_t hi,
                   setting_change<T>& out) {
  auto found = lookup(key);
  if (!found)
    return found.error();
  if (!*found)
    return status::ok();
  out.present = true;
  if (!**found)
    return status::ok();  // a clear
  auto text = single(key, ***found);
  if (!text)
    return text.error();
  auto v = parse_integer(key, *text, lo, hi);
  if (!v)
    return v.error();
  out.value = static_cast<T>(*v);
  return status::ok();
}

status read_level(const trace_lookup& lookup, setting_change<uint32_t>& out) {
  auto found = lookup("trace_level");
  if (!found)
    return found.error();
  if (!*found)
    return status::ok();
  if (!**found) {
    out.present = true;  // a clear
    return status::ok();
  }
  const auto& values = ***found;
  if (values.empty())
    return status::ok();  // nothing asked for
  uint32_t level = 0;
  bool off = false;
  for (const auto& v : values) {
    if (v == "OFF")
      off = true;
    else if (v == "TIMESTAMPS")
      level |= trace_timestamps;
    else if (v == "TENSORS")
      level |= trace_tensors;
    // Triton ignores any other name.
  }
  if (off && values.size() > 1)
    return invalid_argument("Expect only one trace level 'OFF' is specified");
  if (!off && level == 0)
    return status::ok();
  out.present = true;
  out.value = level;
  return status::ok();
}

// Why settings cannot trace ("" when they can, or when they are off).
std::string invalid_reason(const trace_settings& s) {
  if (s.level == 0)
    return "tracing is disabled";
  // OpenTelemetry mode takes a rate of 0: only requests that come with a
  // trace context are traced then.
  if (s.rate == 0 && s.mode == trace_mode::triton)
    return "sample rate must be non-zero";
  if (s.mode == trace_mode::triton && s.file.empty())
    return "trace file name is not given";
  return {};
}

status check_valid(const trace_settings& s) {
  auto reason = invalid_reason(s);
  if (s.level == 0 || (reason.empty() && s.count != 0))
    return status::ok();
  return invalid_argument("Attempting to set invalid trace setting :" + reason);
}

template <class T, class Field>
void apply_change(const setting_change<T>& change, Field& field, const Field& fallback) {
  if (change.present)
    field = change.value ? Field{*change.value} : fallback;
}

} // namespace

result<trace_settings_update> parse_trace_update(const trace_lookup& lookup) {
  auto file = lookup("trace_file");
  if (!file)
    return file.error();
  if (*file)
    return unsupported("trace file location can not be updated through network protocol");
  trace_settings_update u;
  constexpr int64_t u32_max = std::numeric_limits<uint32_t>::max();
  CONCH_RUNTIME_RETURN_IF_ERROR(read_level(lookup, u.level));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_number(lookup, "trace_rate", 0, u32_max, u.rate));
  CONCH_RUNTIME_RETURN_IF_ERROR(
    read_number(lookup, "trace_count", -1, std::numeric_limits<int32_t>::max(), u.count));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_number(lookup, "log_frequency", 0, u32_max,
                                            u.log_frequency));
  return u;
}

result<trace_settings> apply_global(const trace_settings& global, const trace_settings& startup,
                                    const trace_settings_update& u) {
  auto next = global;
  apply_change(u.level, next.level, startup.level);
  apply_change(u.rate, next.rate, startup.rate);
  apply_change(u.count, next.count, startup.count);
  apply_change(u.log_frequency, next.log_frequency, startup.log_frequency);
  CONCH_RUNTIME_RETURN_IF_ERROR(check_valid(next));
  return next;
}

result<trace_overrides> apply_model(const trace_overrides& model, const trace_settings& global,
                                    const trace_settings_update& u) {
  auto next = model;
  auto set = [](const auto& change, auto& field) {
    if (!change.present)
      return;
    if (change.value)
      field = *change.value;
    else
      field.reset();
  };
  set(u.level, next.level);
  set(u.rate, next.rate);
  set(u.count, next.count);
  set(u.log_frequency, next.log_frequency);
  CONCH_RUNTIME_RETURN_IF_ERROR(check_valid(merge(global, next)));
  return next;
}

std::vector<std::string> level_names(uint32_t level) {
  std::vector<std::string> out;
  if ((level & trace_timestamps) != 0)
    out.emplace_back("TIMESTAMPS");
  if ((level & trace_tensors) != 0)
    out.emplace_back("TENSORS");
  if (out.empty())
    out.emplace_back("OFF");
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>>
report(const trace_settings& s) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  out.emplace_back("trace_level", level_names(s.level));
  out.push_back({"trace_rate", {std::to_string(s.rate)}});
  out.push_back({"trace_count", {std::to_string(s.count)}});
  if (s.mode == trace_mode::triton) {
    out.push_back({"log_frequency", {std::to_string(s.log_frequency)}});
    out.push_back({"trace_file", {s.file}});
  }
  out.push_back({"trace_mode", {trace_mode_name(s.mode)}});
  if (s.mode == trace_mode::opentelemetry) {
    const auto& o = s.opentelemetry;
    out.push_back({"url", {o.url}});
    out.push_back({"bsp_max_queue_size", {std::to_string(o.bsp_max_queue_size)}});
    out.push_back({"bsp_schedule_delay", {std::to_string(o.bsp_schedule_delay_ms)}});
    out.push_back(
      {"bsp_max_export_batch_size", {std::to_string(o.bsp_max_export_batch_size)}});
    std::vector<std::string> resource;
    for (const auto& [k, v] : o.resource)
      resource.push_back(k + "=" + v);
    if (!resource.empty())
      out.emplace_back("resource", std::move(resource));
  }
  return out;
}

status validate(const trace_settings& s) {
  if (s.count < -1)
    return invalid_argument("trace count must be -1 (no limit) or more, got "
                            + std::to_string(s.count));
  return status::ok();
}

} // namespace conch::runtime::tracing
