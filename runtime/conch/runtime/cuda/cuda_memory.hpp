#pragma once

#include <memory>

#include "conch/runtime/device_memory.hpp"

namespace conch::runtime::cuda {

/// Pinned and device memory through the CUDA runtime (linked statically, so a
/// machine without a driver simply reports no devices). Thread-safe.
class cuda_memory final : public device_memory {
 public:
  int device_count() const noexcept override;
  result<buffer> allocate_pinned(size_t size) override;
  result<buffer> allocate_device(size_t size, int64_t device_id) override;
};

/// Installs a cuda_memory as the process's device memory provider. Returns the
/// number of devices found.
int register_cuda_memory();

} // namespace conch::runtime::cuda
