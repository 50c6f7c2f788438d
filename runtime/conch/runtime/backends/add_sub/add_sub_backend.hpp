#pragma once

#include "conch/runtime/backends/registry.hpp"

namespace conch::runtime::backends::add_sub {

/// The "add_sub" backend, Triton's "simple" model: OUTPUT0 = INPUT0 + INPUT1
/// and OUTPUT1 = INPUT0 - INPUT1, element-wise. The two inputs share one shape
/// and one numeric data type (INT8..INT64, UINT8..UINT64, FP32, FP64), which
/// the outputs have too; integers wrap around on overflow. The configuration
/// must declare the four tensors with that one type. Honours requested outputs
/// and the `execute_delay_ms` parameter (see common::execute_delay).
backend_entry make_add_sub_backend();

} // namespace conch::runtime::backends::add_sub
