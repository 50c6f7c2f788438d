#include "conch/runtime/memory_pool/pool_setup.hpp"

#include <limits>

namespace conch::runtime::memory_pool {

namespace {

// The block for one pool, or the reason it could not be had.
result<buffer> allocate_block(device_memory& inner, memory_type type, int64_t device_id,
                              uint64_t bytes) {
  // A pool hands out whole 256-byte units: a smaller size still gets one.
  if (bytes > std::numeric_limits<size_t>::max() - pool_alignment)
    return invalid_argument(std::to_string(bytes) + " bytes do not fit in this address space");
  bytes = (bytes + pool_alignment - 1) & ~uint64_t{pool_alignment - 1};
  return type == memory_type::gpu ? inner.allocate_device(static_cast<size_t>(bytes), device_id)
                                  : inner.allocate_pinned(static_cast<size_t>(bytes));
}

} // namespace

pool_setup make_pools(std::shared_ptr<device_memory> inner, const pool_sizes& sizes) {
  pool_setup out;
  out.sizes = sizes;
  std::shared_ptr<block_pool> pinned;
  if (sizes.pinned_bytes > 0) {
    auto block = allocate_block(*inner, memory_type::cpu_pinned, 0, sizes.pinned_bytes);
    if (block)
      pinned = block_pool::make(std::move(*block));
    else
      out.failures.push_back("unable to allocate " + std::to_string(sizes.pinned_bytes)
                             + " bytes of pinned memory for the pinned memory pool: "
                             + block.error().message());
  }
  std::map<int64_t, std::shared_ptr<block_pool>> devices;
  for (int64_t device = 0, n = inner->device_count(); device < n; ++device) {
    auto listed = sizes.device_bytes.find(device);
    uint64_t bytes
      = listed == sizes.device_bytes.end() ? sizes.default_device_bytes : listed->second;
    if (bytes == 0)
      continue;
    auto block = allocate_block(*inner, memory_type::gpu, device, bytes);
    if (block)
      devices.emplace(device, block_pool::make(std::move(*block)));
    else
      out.failures.push_back("unable to allocate " + std::to_string(bytes)
                             + " bytes on GPU " + std::to_string(device)
                             + " for its CUDA memory pool: " + block.error().message());
  }
  out.provider = std::make_shared<pooled_device_memory>(std::move(inner), std::move(pinned),
                                                        std::move(devices));
  return out;
}

} // namespace conch::runtime::memory_pool
