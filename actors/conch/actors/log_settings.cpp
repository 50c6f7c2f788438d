#include "conch/actors/log_settings.hpp"

namespace conch::actors {

log_settings log_settings_store::get() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return settings_;
}

runtime::result<log_settings> log_settings_store::apply(const log_settings_change& change) {
  if (change.log_format && *change.log_format != "default" && *change.log_format != "ISO8601")
    return runtime::invalid_argument("invalid log format '" + *change.log_format
                                     + "', expecting 'default' or 'ISO8601'");
  std::lock_guard<std::mutex> guard{mutex_};
  if (change.log_info)
    settings_.log_info = *change.log_info;
  if (change.log_warning)
    settings_.log_warning = *change.log_warning;
  if (change.log_error)
    settings_.log_error = *change.log_error;
  if (change.log_verbose_level)
    settings_.log_verbose_level = *change.log_verbose_level;
  if (change.log_format)
    settings_.log_format = *change.log_format;
  return settings_;
}

} // namespace conch::actors
