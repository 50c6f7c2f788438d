#pragma once

#include "conch/runtime/result.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/http/request.hpp"

namespace conch::transports::http::kserve {

/// The body of POST /v2/repository/index: empty, or `{"ready": bool}`.
/// Returns the ready flag (false by default).
runtime::result<bool> parse_index_body(const request& req);

/// The body of a load: empty, or `{"parameters": {...}}` where `config` is
/// a string holding a ModelConfig in JSON and each `file:<version>/<path>`
/// a base64 string (spec §1.12). Other parameters are ignored.
runtime::result<runtime::load_parameters> parse_load_body(const request& req);

/// The body of an unload: empty, or `{"parameters": {"unload_dependents":
/// bool}}`. Returns the unload_dependents flag (false by default).
runtime::result<bool> parse_unload_body(const request& req);

} // namespace conch::transports::http::kserve
