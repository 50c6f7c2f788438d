#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime::shm {

/// A registered CUDA shared-memory region: `byte_size` bytes of GPU
/// `device_id`'s memory that a client exported with cudaIpcGetMemHandle,
/// opened in this process through the device memory provider. The handle
/// stays open as long as the region's bytes: buffers that alias them share
/// its ownership, so a region unregistered while requests use it is closed
/// only when they are done. Immutable once made; thread-safe.
class cuda_region {
 public:
  // -- constructors ----------------------------------------------------------

  /// Opens `raw_handle` through `memory`. INVALID_ARG "failed to register
  /// CUDA shared memory region: '<name>', ..." when there is no provider or
  /// no GPU ("GPUs not supported"), when the handle is not ipc_handle_size
  /// bytes, when the device id is not one of the server's GPUs, when
  /// byte_size is 0, or when the provider cannot open the handle (with its
  /// error). Never throws.
  static runtime::result<std::shared_ptr<const cuda_region>>
  open(runtime::device_memory* memory, std::string name, std::string_view raw_handle,
       int64_t device_id, uint64_t byte_size);

  cuda_region(const cuda_region&) = delete;
  cuda_region& operator=(const cuda_region&) = delete;

  // -- properties ------------------------------------------------------------

  const std::string& name() const noexcept { return name_; }
  int64_t device_id() const noexcept { return bytes_.device_id(); }
  uint64_t byte_size() const noexcept { return bytes_.size(); }

  /// The region's device memory (memory_type::gpu); its owner closes the
  /// handle.
  const runtime::buffer& bytes() const noexcept { return bytes_; }

 private:
  cuda_region(std::string name, runtime::buffer bytes) noexcept
    : name_(std::move(name)), bytes_(std::move(bytes)) {}

  std::string name_;
  runtime::buffer bytes_;
};

} // namespace conch::runtime::shm
