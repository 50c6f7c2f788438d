#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime {

/// Where backends get the memory of output tensors. A frontend may hand its
/// own allocator with a request (a shared-memory region, pinned staging);
/// otherwise outputs come from host memory. Implementations must be
/// thread-safe: instances of several models allocate concurrently.
class response_allocator {
 public:
  virtual ~response_allocator() = default;

  /// Allocates `size` bytes for output `name`, preferably of `type` on
  /// `device_id`. The allocator may return another memory type; the buffer
  /// says which.
  virtual result<buffer> allocate(const std::string& name, size_t size, memory_type type,
                                  int64_t device_id) = 0;
};

/// Host memory from the heap. Stateless; one shared instance serves everyone.
class cpu_allocator final : public response_allocator {
 public:
  result<buffer> allocate(const std::string& name, size_t size, memory_type type,
                          int64_t device_id) override;

  /// The process-wide instance.
  static const std::shared_ptr<cpu_allocator>& instance();
};

} // namespace conch::runtime
