#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/response_allocator.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime {

/// Allocates pinned host memory and device memory. The CUDA target provides
/// one (conch/runtime/cuda/cuda_memory.hpp) and installs it with
/// `set_device_memory`; without it, only host memory exists.
class device_memory {
 public:
  virtual ~device_memory() = default;
  /// The number of usable GPUs (0 when there is no driver or device).
  virtual int device_count() const noexcept = 0;
  /// Page-locked host memory.
  virtual result<buffer> allocate_pinned(size_t size) = 0;
  /// Memory on GPU `device_id`.
  virtual result<buffer> allocate_device(size_t size, int64_t device_id) = 0;
};

/// Installs the process-wide provider (thread-safe; the last call wins).
void set_device_memory(std::shared_ptr<device_memory> provider);

/// The installed provider, or null.
std::shared_ptr<device_memory> get_device_memory();

/// A response allocator that honours the preferred memory type when a
/// provider can supply it, and falls back to host memory otherwise.
class preferred_allocator final : public response_allocator {
 public:
  result<buffer> allocate(const std::string& name, size_t size, memory_type type,
                          int64_t device_id) override;
};

} // namespace conch::runtime
