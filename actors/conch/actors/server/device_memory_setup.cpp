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

namespace pool = runtime::memory_pool;

namespace {

// The pools installed for the servers that hold a lease on them. The last
// lease puts back the provider they wrap, unless another took its place.
struct installed_pools {
  installed_pools() = default;
  installed_pools(const installed_pools&) = delete;
  installed_pools& operator=(const installed_pools&) = delete;

  std::shared_ptr<runtime::device_memory> inner;
  std::shared_ptr<pool::pooled_device_memory> pooled;
  pool::pool_sizes sizes;

  ~installed_pools() {
    if (pooled && runtime::replace_device_memory(pooled, inner))
      CONCH_LOG_INFO << "memory pools released";
  }
};

std::mutex pools_mu;
std::weak_ptr<installed_pools> current_pools;  // guarded by pools_mu

// The size a pool of `sizes` has on `device`.
uint64_t device_bytes(const pool::pool_sizes& sizes, int64_t device) {
  auto listed = sizes.device_bytes.find(device);
  return listed == sizes.device_bytes.end() ? sizes.default_device_bytes : listed->second;
}

// Says so where a server asks for pools other than those it shares.
void warn_if_other_sizes(const pool::pool_sizes& held, const pool::pool_sizes& asked,
                         int devices) {
  if (asked.pinned_bytes != held.pinned_bytes)
    CONCH_LOG_WARN << "a pinned memory pool of " << asked.pinned_bytes
                   << " bytes was not created: the process has one of " << held.pinned_bytes
                   << " bytes already, which this server shares";
  for (int device = 0; device < devices; ++device)
    if (device_bytes(asked, device) != device_bytes(held, device))
      CONCH_LOG_WARN << "a CUDA memory pool of " << device_bytes(asked, device)
                     << " bytes on GPU " << device
                     << " was not created: the process has one of "
                     << device_bytes(held, device) << " bytes already, which this server shares";
}

} // namespace

void install_device_memory() {
#ifdef CONCH_HAVE_CUDA
  if (runtime::get_device_memory())
    return;
  auto mine = std::make_shared<runtime::cuda::cuda_memory>();
  if (runtime::set_device_memory_if_absent(mine) != mine)
    return;  // another thread installed one first
  int devices = mine->device_count();
  CONCH_LOG_INFO << "CUDA device memory: " << devices << " GPU"
                 << (devices == 1 ? "" : "s") << " found";
#endif
}

memory_pool_lease install_memory_pools(const server_options& options) {
  pool::pool_sizes sizes;
  sizes.pinned_bytes = options.pinned_memory_pool_byte_size;
  sizes.device_bytes = options.cuda_memory_pool_byte_size;
  std::lock_guard<std::mutex> guard{pools_mu};
  auto installed = runtime::get_device_memory();
  auto provider = installed;
  if (auto held = current_pools.lock(); held && held->pooled == provider) {
    warn_if_other_sizes(held->sizes, sizes, provider->device_count());
    return held;
  }
  // Pools whose last lease just went but which are still installed: build
  // on what they wrap.
  if (auto stale = std::dynamic_pointer_cast<pool::pooled_device_memory>(provider))
    provider = stale->inner();
  if (!provider || provider->device_count() <= 0)
    return nullptr;
  auto setup = pool::make_pools(provider, sizes);
  for (const auto& failure : setup.failures)
    CONCH_LOG_WARN << failure << "; those buffers are allocated as requests need them";
  if (!runtime::replace_device_memory(installed, setup.provider)) {
    CONCH_LOG_WARN << "the device memory provider changed while the memory pools were being "
                      "allocated; this server runs without pools";
    return nullptr;
  }
  CONCH_LOG_INFO << "Pinned memory pool: " << setup.provider->pinned_pool().total_bytes
                 << " bytes";
  for (int device = 0, n = setup.provider->device_count(); device < n; ++device)
    CONCH_LOG_INFO << "CUDA memory pool on GPU " << device << ": "
                   << setup.provider->device_pool(device).total_bytes << " bytes";
  // Filled in place: a copy's destructor would put the provider back.
  auto lease = std::make_shared<installed_pools>();
  lease->inner = std::move(provider);
  lease->pooled = std::move(setup.provider);
  lease->sizes = std::move(setup.sizes);
  current_pools = lease;
  return lease;
}

} // namespace conch::actors
