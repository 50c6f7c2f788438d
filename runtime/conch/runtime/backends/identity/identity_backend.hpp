#pragma once

#include "conch/runtime/backends/registry.hpp"

namespace conch::runtime::backends::identity {

/// The "identity" backend: output i of the configuration returns the request's
/// tensor for input i of the configuration (matched by name), with the same
/// data type, shape and bytes. Any data type (BYTES, FP16 and BF16 included)
/// and any shape. When the request brings no allocator of its own, an output
/// aliases its input's buffer (no copy); otherwise the bytes are copied into
/// memory from the request's allocator, which requires host memory on both
/// sides. Honours requested outputs and the `execute_delay_ms` parameter (see
/// common::execute_delay).
backend_entry make_identity_backend();

} // namespace conch::runtime::backends::identity
