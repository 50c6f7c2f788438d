#pragma once

#include <cstdint>
#include <string>

namespace conch::runtime::shm {

/// A place in a registered shared-memory region, as a request names it with
/// its `shared_memory_region`, `shared_memory_offset` and
/// `shared_memory_byte_size` parameters (the same over HTTP and gRPC).
/// Resolving the region and checking the bounds is the registry's job.
struct region_ref {
  /// The name the region was registered under.
  std::string region;
  /// Where the tensor starts inside the region.
  uint64_t offset = 0;
  /// The bytes the tensor may occupy.
  uint64_t byte_size = 0;
};

} // namespace conch::runtime::shm
