#include "conch/runtime/cuda/cuda_memory.hpp"

#include <cstring>
#include <optional>
#include <string>

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace conch::runtime::cuda {

static_assert(sizeof(cudaIpcMemHandle_t) == ipc_handle_size,
              "ipc_handle_size must equal CUDA_IPC_HANDLE_SIZE");

namespace {

status cuda_error(const char* what, cudaError_t err) {
  // Clears the error the runtime keeps for cudaGetLastError, so that a later
  // unrelated call does not report it again.
  (void) cudaGetLastError();
  return {errc::unavailable, std::string{what} + " failed: " + cudaGetErrorString(err)};
}

// The bytes of the allocation that `p` points into from `p` to its end, as
// the driver (cuMemGetAddressRange, fetched through the runtime so that no
// libcuda is linked) knows it; nullopt when the driver cannot say.
std::optional<size_t> bytes_from(const void* p) {
  using address_range_fn = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
  static const address_range_fn range = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 3020, cudaEnableDefault,
                                         &found)
          != cudaSuccess
        || found != cudaDriverEntryPointSuccess) {
      (void) cudaGetLastError();
      return static_cast<address_range_fn>(nullptr);
    }
    return reinterpret_cast<address_range_fn>(fn);
  }();
  if (range == nullptr)
    return std::nullopt;
  CUdeviceptr base = 0;
  size_t size = 0;
  auto at = reinterpret_cast<CUdeviceptr>(p);
  if (range(&base, &size, at) != CUDA_SUCCESS || at < base || at - base > size)
    return std::nullopt;
  return size - (at - base);
}

// Makes `device` the calling thread's current device while it lives, then
// gives the thread back the device it had: an application's thread (a
// Python thread using cupy, say) keeps the device it chose.
class device_scope {
 public:
  explicit device_scope(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      (void) cudaGetLastError();
      previous_ = -1;
    }
    if (previous_ != device)
      status_ = cudaSetDevice(device);
  }
  ~device_scope() {
    if (status_ == cudaSuccess && previous_ >= 0)
      (void) cudaSetDevice(previous_);
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

  cudaError_t status() const noexcept { return status_; }

 private:
  int previous_ = -1;
  cudaError_t status_ = cudaSuccess;
};

} // namespace

int cuda_memory::device_count() const noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void) cudaGetLastError();
    return 0;
  }
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
  auto device = static_cast<int>(device_id);
  device_scope on{device};
  if (on.status() != cudaSuccess)
    return cuda_error("cudaSetDevice", on.status());
  void* p = nullptr;
  if (auto err = cudaMalloc(&p, size); err != cudaSuccess)
    return cuda_error("cudaMalloc", err);
  std::shared_ptr<const void> owner{p, [device](const void* q) {
    device_scope freeing{device};
    cudaFree(const_cast<void*>(q));
  }};
  return buffer{std::move(owner), static_cast<std::byte*>(p), size, memory_type::gpu, device_id};
}

result<buffer> cuda_memory::open_ipc_handle(std::string_view raw_handle, int64_t device_id,
                                            size_t size) {
  if (raw_handle.size() != sizeof(cudaIpcMemHandle_t))
    return invalid_argument("a CUDA IPC handle has " + std::to_string(sizeof(cudaIpcMemHandle_t))
                            + " bytes, not " + std::to_string(raw_handle.size()));
  cudaIpcMemHandle_t handle;
  std::memcpy(&handle, raw_handle.data(), sizeof handle);
  auto device = static_cast<int>(device_id);
  device_scope on{device};
  if (on.status() != cudaSuccess)
    return cuda_error("cudaSetDevice", on.status());
  void* base = nullptr;
  if (auto err = cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess);
      err != cudaSuccess)
    return cuda_error("cudaIpcOpenMemHandle", err);
  std::shared_ptr<const void> owner{base, [device](const void* q) {
    device_scope closing{device};
    cudaIpcCloseMemHandle(const_cast<void*>(q));
  }};
  // The client's byte_size is a claim: bytes past the allocation behind the
  // handle belong to someone else, or to nobody.
  auto available = bytes_from(base);
  if (!available)
    return invalid_argument("unable to find the size of the allocation behind the CUDA IPC "
                            "handle");
  if (size > *available)
    return invalid_argument("byte_size " + std::to_string(size) + " exceeds the "
                            + std::to_string(*available)
                            + " bytes of the allocation behind the CUDA IPC handle");
  return buffer{std::move(owner), static_cast<std::byte*>(base), size, memory_type::gpu,
                device_id};
}

status cuda_memory::copy(const buffer& to, const buffer& from) {
  if (to.size() < from.size())
    return invalid_argument("cannot copy " + std::to_string(from.size()) + " bytes into "
                            + std::to_string(to.size()));
  if (from.empty())
    return status::ok();
  if (to.host_accessible() && from.host_accessible()) {
    std::memcpy(to.data(), from.data(), from.size());
    return status::ok();
  }
  auto device = to.type() == memory_type::gpu ? to.device_id() : from.device_id();
  device_scope on{static_cast<int>(device)};
  if (on.status() != cudaSuccess)
    return cuda_error("cudaSetDevice", on.status());
  if (auto err = cudaMemcpy(to.data(), from.data(), from.size(), cudaMemcpyDefault);
      err != cudaSuccess)
    return cuda_error("cudaMemcpy", err);
  return status::ok();
}

status cuda_memory::synchronize(int64_t device_id) {
  device_scope on{static_cast<int>(device_id)};
  if (on.status() != cudaSuccess)
    return cuda_error("cudaSetDevice", on.status());
  if (auto err = cudaStreamSynchronize(cudaStreamLegacy); err != cudaSuccess)
    return cuda_error("cudaStreamSynchronize", err);
  return status::ok();
}

int register_cuda_memory() {
  auto provider = std::make_shared<cuda_memory>();
  int n = provider->device_count();
  set_device_memory(std::move(provider));
  return n;
}

} // namespace conch::runtime::cuda
