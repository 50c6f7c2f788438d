#pragma once

#include "conch/actors/server_options.hpp"

namespace conch::actors {

/// Installs the CUDA device memory provider as the process's provider
/// (runtime::set_device_memory) when this build has CUDA and no provider is
/// installed yet; one installed before (an embedding's own, a test's fake)
/// is kept. Cheap and harmless on a host without a GPU or driver: the
/// provider then reports no devices. Thread-safe.
void install_device_memory();

/// Wraps the installed provider in the pinned and CUDA memory pools that
/// `options` ask for, once per process, when it reports a GPU; a pool that
/// cannot be allocated is logged and left out. Pools already installed (by
/// an earlier server) are kept as they are. Thread-safe.
void install_memory_pools(const server_options& options);

} // namespace conch::actors
