#pragma once

#include "conch/runtime/backends/registry.hpp"

namespace conch::runtime::backends::repeat {

/// The "repeat" backend: a decoupled model that answers each request with N
/// responses and then a final response without outputs. With an input "IN",
/// N is its element count and response i carries "OUT" (shape [1], IN's data
/// type, IN's element i) and "IDX" (UINT32 [1], i). Without "IN", N is the
/// request's integer parameter "repeat_count" (responses carry only "IDX"),
/// else 0. An optional UINT32 input "DELAY" holds the milliseconds to wait
/// before each response. A request cancelled between responses is answered
/// CANCELLED. The configuration must be decoupled and declare output "IDX"
/// (TYPE_UINT32), plus "OUT" when it declares "IN". Honours requested outputs
/// and the `execute_delay_ms` parameter (see common::execute_delay).
backend_entry make_repeat_backend();

} // namespace conch::runtime::backends::repeat
