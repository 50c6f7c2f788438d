#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "conch/runtime/memory_pool/pooled_device_memory.hpp"

namespace conch::runtime::memory_pool {

/// The pools to allocate (Triton's --pinned-memory-pool-byte-size and
/// --cuda-memory-pool-byte-size). A size of 0 means no pool.
struct pool_sizes {
  /// Pinned host memory.
  uint64_t pinned_bytes = uint64_t{256} << 20;
  /// Per GPU; a GPU not listed gets default_device_bytes.
  std::map<int64_t, uint64_t> device_bytes;
  uint64_t default_device_bytes = uint64_t{64} << 20;
};

/// What building the pools did.
struct pool_setup {
  /// The sizes asked for.
  pool_sizes sizes;
  /// The provider to install: `inner` wrapped in the pools.
  std::shared_ptr<pooled_device_memory> provider;
  /// One line per pool that could not be allocated (it is left out, and its
  /// allocations go straight to `inner`).
  std::vector<std::string> failures;
};

/// Allocates the pools of `sizes` from `inner`: the pinned one, and one per
/// GPU that `inner` reports.
pool_setup make_pools(std::shared_ptr<device_memory> inner, const pool_sizes& sizes);

} // namespace conch::runtime::memory_pool
