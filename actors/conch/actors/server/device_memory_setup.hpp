#pragma once

namespace conch::actors {

/// Installs the CUDA device memory provider as the process's provider
/// (runtime::set_device_memory) when this build has CUDA and no provider is
/// installed yet; one installed before (an embedding's own, a test's fake)
/// is kept. Cheap and harmless on a host without a GPU or driver: the
/// provider then reports no devices. Thread-safe.
void install_device_memory();

} // namespace conch::actors
