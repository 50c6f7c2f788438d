#pragma once

#include "conch/runtime/result.hpp"
#include "conch/runtime/tracing/trace_settings.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// The change a TraceSettingRequest asks for (runtime::tracing::
/// parse_trace_update, as over HTTP): each setting's values as strings, an
/// empty SettingValue to clear it.
runtime::result<runtime::tracing::trace_settings_update>
decode_trace_settings(const inference::TraceSettingRequest& req);

/// Writes every setting of `settings` into `out`, each as its strings.
void encode_trace_settings(const runtime::tracing::trace_settings& settings,
                           inference::TraceSettingResponse& out);

} // namespace conch::transports::grpc
