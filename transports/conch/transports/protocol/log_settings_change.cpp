#include "conch/transports/protocol/log_settings_change.hpp"

#include <limits>
#include <optional>

namespace conch::transports::protocol {

namespace {

runtime::status read_bool(const setting_lookup& lookup, const char* key,
                          std::optional<bool>& out) {
  auto v = lookup(key);
  if (std::holds_alternative<std::monostate>(v))
    return runtime::status::ok();
  if (!std::holds_alternative<bool>(v))
    return runtime::invalid_argument(std::string{"expect boolean for '"} + key + "'");
  out = std::get<bool>(v);
  return runtime::status::ok();
}

runtime::status read_level(const setting_lookup& lookup, std::optional<uint32_t>& out) {
  auto v = lookup("log_verbose_level");
  if (std::holds_alternative<std::monostate>(v))
    return runtime::status::ok();
  if (!std::holds_alternative<uint64_t>(v)
      || std::get<uint64_t>(v) > std::numeric_limits<uint32_t>::max())
    return runtime::invalid_argument("expect unsigned integer for 'log_verbose_level'");
  out = static_cast<uint32_t>(std::get<uint64_t>(v));
  return runtime::status::ok();
}

runtime::status read_format(const setting_lookup& lookup, std::optional<std::string>& out) {
  auto v = lookup("log_format");
  if (std::holds_alternative<std::monostate>(v))
    return runtime::status::ok();
  if (!std::holds_alternative<std::string>(v))
    return runtime::invalid_argument("expect string for 'log_format'");
  out = std::get<std::string>(std::move(v));
  return runtime::status::ok();
}

} // namespace

runtime::result<log_settings_update> parse_log_settings_change(const setting_lookup& lookup) {
  if (!std::holds_alternative<std::monostate>(lookup("log_file")))
    return runtime::unsupported("log file location can not be updated through network protocol");
  log_settings_update u;
  CONCH_RUNTIME_RETURN_IF_ERROR(read_bool(lookup, "log_info", u.log_info));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_bool(lookup, "log_warning", u.log_warning));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_bool(lookup, "log_error", u.log_error));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_level(lookup, u.log_verbose_level));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_format(lookup, u.log_format));
  return u;
}

} // namespace conch::transports::protocol
