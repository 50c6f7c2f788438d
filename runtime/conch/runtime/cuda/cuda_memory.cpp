#include "conch/runtime/cuda/cuda_memory.hpp"

#include <string>

#include <cuda_runtime_api.h>

namespace conch::runtime::cuda {

namespace {

status cuda_error(const char* what, cudaError_t err) {
  return {errc::unavailable, std::string{what} + " failed: " + cudaGetErrorString(err)};
}

} // namespace

int cuda_memory::device_count() const noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess)
    return 0;
  return n;
}

result<buffer> cuda_memory::allocate_pinned(size_t size) {
  void* p = nullptr;
  if (auto err = cudaHostAlloc(&p, size, cudaHostAllocPortable); err != cudaSuccess)
    return cuda_error("cudaHostAlloc", err);
  std::shared_ptr<const void> owner{p, [](const void* q) { cudaFreeHost(const_cast<void*>(q)); }};
  return buffer{std::move(owner), static_cast<std::byte*>(p), size, memory_type::cpu_pinned, 0};
}

result<buffer> cuda_memory::allocate_device(size_t size, int64_t device_id) {
  if (auto err = cudaSetDevice(static_cast<int>(device_id)); err != cudaSuccess)
    return cuda_error("cudaSetDevice", err);
  void* p = nullptr;
  if (auto err = cudaMalloc(&p, size); err != cudaSuccess)
    return cuda_error("cudaMalloc", err);
  auto device = static_cast<int>(device_id);
  std::shared_ptr<const void> owner{p, [device](const void* q) {
    cudaSetDevice(device);
    cudaFree(const_cast<void*>(q));
  }};
  return buffer{std::move(owner), static_cast<std::byte*>(p), size, memory_type::gpu, device_id};
}

int register_cuda_memory() {
  auto provider = std::make_shared<cuda_memory>();
  int n = provider->device_count();
  set_device_memory(std::move(provider));
  return n;
}

} // namespace conch::runtime::cuda
