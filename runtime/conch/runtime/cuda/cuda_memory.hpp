#pragma once

#include <memory>

#include "conch/runtime/device_memory.hpp"

namespace conch::runtime::cuda {

/// Pinned and device memory, CUDA IPC handles and copies through the CUDA
/// runtime (linked statically, so a machine without a driver simply reports
/// no devices). Each call works on the device it names and gives the calling
/// thread back the current device it had. Thread-safe.
class cuda_memory final : public device_memory {
 public:
  int device_count() const noexcept override;
  result<buffer> allocate_pinned(size_t size) override;
  result<buffer> allocate_device(size_t size, int64_t device_id) override;
  /// cudaIpcOpenMemHandle on `device_id` with lazy peer access; the
  /// owner closes the handle on the same device. INVALID_ARG when `size`
  /// exceeds the allocation behind the handle (cuMemGetAddressRange).
  result<buffer> open_ipc_handle(std::string_view raw_handle, int64_t device_id,
                                 size_t size) override;
  /// cudaMemcpy (cudaMemcpyDefault) after selecting the device of the
  /// device-side buffer; a plain memcpy between host buffers.
  status copy(const buffer& to, const buffer& from) override;
  /// cudaStreamSynchronize(cudaStreamLegacy) on `device_id`.
  status synchronize(int64_t device_id) override;
};

/// Installs a cuda_memory as the process's device memory provider. Returns the
/// number of devices found.
int register_cuda_memory();

} // namespace conch::runtime::cuda
