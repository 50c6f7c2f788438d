#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/response_allocator.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime {

/// The size of a CUDA IPC memory handle (CUDA_IPC_HANDLE_SIZE), the bytes a
/// client sends to register a CUDA shared-memory region.
inline constexpr size_t ipc_handle_size = 64;

/// The size of a memory pool and the bytes handed out from it.
struct pool_usage {
  uint64_t total_bytes = 0;
  uint64_t used_bytes = 0;
};

/// Allocates pinned host memory and device memory, opens the device memory
/// of other processes and copies between host and device. The CUDA target
/// provides one (conch/runtime/cuda/cuda_memory.hpp) and installs it with
/// `set_device_memory`; without it, only host memory exists. Thread-safe.
class device_memory {
 public:
  virtual ~device_memory() = default;
  /// The number of usable GPUs (0 when there is no driver or device).
  virtual int device_count() const noexcept = 0;
  /// Page-locked host memory.
  virtual result<buffer> allocate_pinned(size_t size) = 0;
  /// Memory on GPU `device_id`.
  virtual result<buffer> allocate_device(size_t size, int64_t device_id) = 0;
  /// The first `size` bytes of the device memory another process exported as
  /// `raw_handle` (ipc_handle_size bytes) on GPU `device_id`. The buffer's
  /// owner closes the handle when the last copy of the buffer goes.
  /// INVALID_ARG for a handle of the wrong size; the CUDA error otherwise.
  virtual result<buffer> open_ipc_handle(std::string_view raw_handle, int64_t device_id,
                                         size_t size) = 0;
  /// Copies the bytes of `from` to the start of `to`, host or device memory
  /// either way; returns when the copy is done. INVALID_ARG when `to` is
  /// smaller than `from`; the CUDA error otherwise.
  virtual status copy(const buffer& to, const buffer& from) = 0;
  /// Waits until the work queued on GPU `device_id`'s legacy default stream
  /// is done: what a producer queued there before it handed its memory over
  /// through DLPack. Nothing to wait for without a device.
  virtual status synchronize(int64_t device_id) {
    (void) device_id;
    return status::ok();
  }
  /// The pinned memory pool that allocate_pinned serves from first (Triton's
  /// nv_pinned_memory_pool_* gauges); zeros without one.
  virtual pool_usage pinned_pool() const { return {}; }
  /// The pool on GPU `device_id` that allocate_device serves from first;
  /// zeros without one.
  virtual pool_usage device_pool(int64_t device_id) const {
    (void) device_id;
    return {};
  }
};

/// Installs the process-wide provider (thread-safe; the last call wins).
void set_device_memory(std::shared_ptr<device_memory> provider);

/// Installs `provider` unless a provider is installed already; returns the
/// one installed now (either). Thread-safe.
std::shared_ptr<device_memory> set_device_memory_if_absent(std::shared_ptr<device_memory> provider);

/// Installs `provider` in place of `expected` if `expected` is still the one
/// installed; true when it was. Thread-safe.
bool replace_device_memory(const std::shared_ptr<device_memory>& expected,
                           std::shared_ptr<device_memory> provider);

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
