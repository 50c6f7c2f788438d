#pragma once

#include <memory>

#include "conch/actors/server_options.hpp"

namespace conch::actors {

/// Installs the CUDA device memory provider as the process's provider
/// (runtime::set_device_memory) when this build has CUDA and no provider is
/// installed yet; one installed before (an embedding's own, a test's fake)
/// is kept. Cheap and harmless on a host without a GPU or driver: the
/// provider then reports no devices. Thread-safe.
void install_device_memory();

/// What keeps the process's memory pools installed: each server holds one.
using memory_pool_lease = std::shared_ptr<void>;

/// The pinned and CUDA memory pools `options` ask for, wrapped around the
/// installed provider where it reports a GPU (null where it does not). The
/// pools belong to the process: a server started while they are installed
/// shares them (with a warning when it asks for other sizes), and when the
/// last lease goes the provider they wrap is installed again, as Triton
/// frees its pools with its server. A pool that cannot be allocated is
/// logged and left out. Thread-safe.
memory_pool_lease install_memory_pools(const server_options& options);

} // namespace conch::actors
