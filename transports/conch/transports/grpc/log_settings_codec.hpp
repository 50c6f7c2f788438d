#pragma once

#include "conch/runtime/result.hpp"
#include "conch/transports/gateway.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// The change a LogSettingsRequest asks for (protocol::
/// parse_log_settings_change, as over HTTP): bool_param for log_info,
/// log_warning and log_error, uint32_param for log_verbose_level,
/// string_param for log_format; an unset value leaves a setting as it is.
/// A request without settings changes nothing.
runtime::result<log_settings_update> decode_log_settings(const inference::LogSettingsRequest& req);

/// Writes every setting of `settings` into `out`, typed as the request
/// takes them (log_file and log_format as string_param).
void encode_log_settings(const log_settings& settings, inference::LogSettingsResponse& out);

} // namespace conch::transports::grpc
