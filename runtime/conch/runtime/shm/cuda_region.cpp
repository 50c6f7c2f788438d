#include "conch/runtime/shm/cuda_region.hpp"

#include <limits>

namespace conch::runtime::shm {

namespace {

runtime::status refused(const std::string& name, const std::string& why) {
  return runtime::invalid_argument("failed to register CUDA shared memory region: '" + name
                                   + "', " + why);
}

} // namespace

runtime::result<std::shared_ptr<const cuda_region>>
cuda_region::open(runtime::device_memory* memory, std::string name, std::string_view raw_handle,
                  int64_t device_id, uint64_t byte_size) {
  // A server without GPUs answers the same whatever the client sent.
  int devices = memory != nullptr ? memory->device_count() : 0;
  if (devices == 0)
    return refused(name, "GPUs not supported");
  if (raw_handle.size() != runtime::ipc_handle_size)
    return refused(name, "the raw handle must be " + std::to_string(runtime::ipc_handle_size)
                           + " bytes (a cudaIpcMemHandle_t), not "
                           + std::to_string(raw_handle.size()));
  if (device_id < 0 || device_id >= devices)
    return refused(name, "invalid device id " + std::to_string(device_id) + " (the server has "
                           + std::to_string(devices) + " GPU" + (devices == 1 ? "" : "s") + ")");
  if (byte_size == 0)
    return refused(name, "byte_size must be greater than 0");
  if (byte_size > std::numeric_limits<size_t>::max())
    return refused(name, "byte_size is too large");
  auto bytes = memory->open_ipc_handle(raw_handle, device_id, static_cast<size_t>(byte_size));
  if (!bytes)
    return refused(name, bytes.error().message());
  return std::shared_ptr<const cuda_region>{new cuda_region{std::move(name), std::move(*bytes)}};
}

} // namespace conch::runtime::shm
