#include "conch/transports/grpc/trace_settings_codec.hpp"

namespace conch::transports::grpc {

using runtime::tracing::trace_value;

runtime::result<runtime::tracing::trace_settings_update>
decode_trace_settings(const inference::TraceSettingRequest& req) {
  return runtime::tracing::parse_trace_update(
    [&req](std::string_view key) -> runtime::result<std::optional<trace_value>> {
      auto it = req.settings().find(std::string{key});
      if (it == req.settings().end())
        return std::optional<trace_value>{};
      const auto& values = it->second.value();
      if (values.empty())
        return std::optional<trace_value>{trace_value{}};  // a clear
      return std::optional<trace_value>{
        trace_value{std::vector<std::string>{values.begin(), values.end()}}};
    });
}

void encode_trace_settings(const runtime::tracing::trace_settings& settings,
                           inference::TraceSettingResponse& out) {
  auto& map = *out.mutable_settings();
  for (auto& [key, values] : runtime::tracing::report(settings)) {
    auto& entry = map[key];
    for (auto& v : values)
      entry.add_value(std::move(v));
  }
}

} // namespace conch::transports::grpc
