#pragma once

#include <string>

#include "conch/runtime/result.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/http/request.hpp"

namespace conch::transports::http::kserve {

/// The body of POST /v2/logging (spec §1.15): a JSON object whose
/// log_info, log_warning and log_error are booleans, log_verbose_level an
/// unsigned integer and log_format a string; null leaves a setting as it
/// is. A non-null log_file is UNSUPPORTED; a wrong type INVALID_ARG (the
/// checks of protocol::parse_log_settings_change, shared with gRPC).
runtime::result<log_settings_update> parse_log_settings_body(const request& req);

/// The JSON form of `settings`, every key present.
std::string log_settings_json(const log_settings& settings);

} // namespace conch::transports::http::kserve
