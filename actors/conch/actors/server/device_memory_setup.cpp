#include "conch/actors/server/device_memory_setup.hpp"

#include <memory>
#include <mutex>

#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/memory_pool/pool_setup.hpp"

// The one place that knows whether the CUDA target was built.
#ifdef CONCH_HAVE_CUDA
#include "conch/runtime/cuda/cuda_memory.hpp"
#endif

namespace conch::actors {

void install_device_memory() {
#ifdef CONCH_HAVE_CUDA
  if (runtime::get_device_memory())
    return;
  int devices = runtime::cuda::register_cuda_memory();
  CONCH_LOG_INFO << "CUDA device memory: " << devices << " GPU"
                 << (devices == 1 ? "" : "s") << " found";
#endif
}

void install_memory_pools(const server_options& options) {
  namespace pool = runtime::memory_pool;
  // Two servers starting at once must not both wrap the provider.
  static std::mutex mu;
  std::lock_guard<std::mutex> guard{mu};
  auto provider = runtime::get_device_memory();
  if (!provider || std::dynamic_pointer_cast<pool::pooled_device_memory>(provider)
      || provider->device_count() <= 0)
    return;
  pool::pool_sizes sizes;
  sizes.pinned_bytes = options.pinned_memory_pool_byte_size;
  sizes.device_bytes = options.cuda_memory_pool_byte_size;
  auto setup = pool::make_pools(std::move(provider), sizes);
  for (const auto& failure : setup.failures)
    CONCH_LOG_WARN << failure << "; those buffers are allocated as requests need them";
  auto pinned = setup.provider->pinned_pool();
  CONCH_LOG_INFO << "Pinned memory pool: " << pinned.total_bytes << " bytes";
  for (int device = 0, n = setup.provider->device_count(); device < n; ++device)
    CONCH_LOG_INFO << "CUDA memory pool on GPU " << device << ": "
                   << setup.provider->device_pool(device).total_bytes << " bytes";
  runtime::set_device_memory(std::move(setup.provider));
}

} // namespace conch::actors
