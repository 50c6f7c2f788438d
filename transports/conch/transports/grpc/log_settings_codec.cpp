#include "conch/transports/grpc/log_settings_codec.hpp"

#include "conch/transports/protocol/log_settings_change.hpp"

namespace conch::transports::grpc {

namespace {

using value = inference::LogSettingsRequest::SettingValue;

protocol::setting_value to_setting(const value& v) {
  switch (v.parameter_choice_case()) {
    case value::kBoolParam: return v.bool_param();
    case value::kUint32Param: return uint64_t{v.uint32_param()};
    case value::kStringParam: return v.string_param();
    case value::PARAMETER_CHOICE_NOT_SET: break;
  }
  return std::monostate{};
}

} // namespace

runtime::result<log_settings_update> decode_log_settings(const inference::LogSettingsRequest& req) {
  const auto& settings = req.settings();
  return protocol::parse_log_settings_change([&settings](std::string_view key) {
    auto i = settings.find(std::string{key});
    return i == settings.end() ? protocol::setting_value{} : to_setting(i->second);
  });
}

void encode_log_settings(const log_settings& s, inference::LogSettingsResponse& out) {
  auto& m = *out.mutable_settings();
  m["log_file"].set_string_param(s.log_file);
  m["log_info"].set_bool_param(s.log_info);
  m["log_warning"].set_bool_param(s.log_warning);
  m["log_error"].set_bool_param(s.log_error);
  m["log_verbose_level"].set_uint32_param(s.log_verbose_level);
  m["log_format"].set_string_param(s.log_format);
}

} // namespace conch::transports::grpc
