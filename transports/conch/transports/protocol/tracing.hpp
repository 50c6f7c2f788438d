#pragma once

#include "conch/runtime/status.hpp"

namespace conch::transports::protocol {

/// The answer of a server built without tracing to every trace-settings
/// call, global or per model, read or update, over HTTP and gRPC alike
/// (spec §1.14): UNAVAILABLE "the server does not support tracing".
runtime::status tracing_unsupported();

} // namespace conch::transports::protocol
