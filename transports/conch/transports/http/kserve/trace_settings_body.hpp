#pragma once

#include <string>

#include "conch/runtime/result.hpp"
#include "conch/runtime/tracing/trace_settings.hpp"
#include "conch/transports/http/request.hpp"

namespace conch::transports::http::kserve {

/// The body of POST /v2[/models/{m}]/trace/setting (the trace extension): a
/// JSON object whose values are strings, trace_level a list of strings, or
/// null to clear; the checks of runtime::tracing::parse_trace_update. As in
/// Triton, a value of another JSON type is INTERNAL ("attempt to access JSON
/// non-string as string").
runtime::result<runtime::tracing::trace_settings_update>
parse_trace_settings_body(const request& req);

/// The JSON form of `settings`: trace_level a list, the rest strings.
std::string trace_settings_json(const runtime::tracing::trace_settings& settings);

} // namespace conch::transports::http::kserve
