#pragma once

#include <string>

#include "conch/runtime/status.hpp"

namespace conch::transports::shm {

// This server registers no CUDA regions (TODO(issue 4): CUDA IPC regions on
// a CUDA build with a GPU). Every frontend answers the CUDA shared-memory
// calls the same way: status lists none, unregistering succeeds (as
// perf_analyzer expects of any server), and registering is refused.

/// The answer to registering CUDA region `name`: INVALID_ARG "failed to
/// register CUDA shared memory region: '<name>', GPUs not supported".
runtime::status register_cuda(const std::string& name);

/// The answer to a CUDA status call: ok (an empty list) when `name` is
/// empty, else NOT_FOUND "Unable to find cuda shared memory region: '<name>'".
runtime::status cuda_status(const std::string& name);

} // namespace conch::transports::shm
