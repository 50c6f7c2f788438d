#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>

#include "conch/runtime/result.hpp"
#include "conch/transports/gateway.hpp"

namespace conch::transports::protocol {

/// A value of another type than the logging extension takes for any key.
struct other_value {};

/// One value of a logging-settings change as the client sent it: absent or
/// null (monostate), a boolean, an unsigned integer, a string, or anything
/// else.
using setting_value = std::variant<std::monostate, bool, uint64_t, std::string, other_value>;

/// Finds the value the client sent for a key; monostate when it sent none.
using setting_lookup = std::function<setting_value(std::string_view key)>;

/// A change of the logging settings (spec §1.15, the same over HTTP and
/// gRPC): log_info, log_warning and log_error take a boolean,
/// log_verbose_level an unsigned 32-bit integer, log_format a string; a null
/// value leaves a setting as it is; other keys are ignored. A non-null
/// log_file is UNSUPPORTED; a value of the wrong type INVALID_ARG naming the
/// key. The gateway checks the values themselves (log_format's names).
runtime::result<log_settings_update> parse_log_settings_change(const setting_lookup& lookup);

} // namespace conch::transports::protocol
