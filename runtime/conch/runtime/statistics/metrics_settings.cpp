#include "conch/runtime/statistics/metrics_settings.hpp"

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace conch::runtime::statistics {

namespace {

std::optional<bool> parse_bool(const std::string& text) {
  if (text == "true" || text == "1")
    return true;
  if (text == "false" || text == "0")
    return false;
  return std::nullopt;
}

// The whole of `text` as a number in [0, 1].
std::optional<double> parse_unit(std::string_view text) {
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !(value >= 0 && value <= 1))
    return std::nullopt;
  return value;
}

status bad_setting(const std::string& key, const std::string& value, const char* expected) {
  return invalid_argument("metrics configuration setting '" + key + "=" + value
                          + "' is invalid: expected " + expected);
}

status apply(metrics_settings& s, const std::string& key, const std::string& value) {
  bool* flag = key == "counter_latencies"     ? &s.counter_latencies
               : key == "summary_latencies"   ? &s.summary_latencies
               : key == "histogram_latencies" ? &s.histogram_latencies
                                              : nullptr;
  if (flag != nullptr) {
    auto parsed = parse_bool(value);
    if (!parsed)
      return bad_setting(key, value, "true or false");
    *flag = *parsed;
    return status::ok();
  }
  if (key == "summary_quantiles") {
    auto quantiles = parse_summary_quantiles(value);
    if (!quantiles)
      return quantiles.error();
    s.summary_quantiles = std::move(*quantiles);
    return status::ok();
  }
  return invalid_argument("unknown metrics configuration setting '" + key
                          + "' (known: counter_latencies, summary_latencies, "
                            "summary_quantiles, histogram_latencies)");
}

} // namespace

result<std::vector<summary_quantile>> parse_summary_quantiles(const std::string& text) {
  std::vector<summary_quantile> out;
  std::string_view rest{text};
  while (true) {
    auto comma = rest.find(',');
    auto entry = rest.substr(0, comma);
    auto colon = entry.find(':');
    std::optional<double> q, e;
    if (colon != std::string_view::npos) {
      q = parse_unit(entry.substr(0, colon));
      e = parse_unit(entry.substr(colon + 1));
    }
    if (!q || !e)
      return bad_setting("summary_quantiles", text,
                         "comma-separated <quantile>:<error> pairs, each in [0, 1]");
    out.push_back({*q, *e});
    if (comma == std::string_view::npos)
      return out;
    rest.remove_prefix(comma + 1);
  }
}

result<metrics_settings>
parse_metrics_configuration(const std::map<std::string, std::map<std::string, std::string>>& groups) {
  metrics_settings s;
  for (const auto& [group, settings] : groups) {
    if (!group.empty())
      return invalid_argument("unknown metrics configuration group '" + group
                              + "': the settings belong to the unnamed group \"\"");
    for (const auto& [key, value] : settings)
      CONCH_RUNTIME_RETURN_IF_ERROR(apply(s, key, value));
  }
  return s;
}

} // namespace conch::runtime::statistics
