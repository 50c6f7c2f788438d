#pragma once

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/device_memory.hpp"

namespace conch::runtime::test {

/// A device memory provider for machines without a GPU: "device memory" is
/// host memory labelled memory_type::gpu, an IPC handle is a key into a
/// table of such allocations, and a copy is a memcpy. It lets the code that
/// registers CUDA shared-memory regions and moves tensors in and out of
/// them run for real. It counts the handles open and the copies made so
/// that tests can see them. Thread-safe.
class fake_device_memory final : public device_memory {
 public:
  explicit fake_device_memory(int devices = 1) : devices_(devices) {}

  // -- test controls ---------------------------------------------------------

  /// Makes `size` zeroed bytes of "device memory" on `device_id`, as a client
  /// would with cudaMalloc, and returns the IPC handle (ipc_handle_size
  /// bytes) that opens them.
  std::string export_allocation(size_t size, int64_t device_id = 0) {
    std::lock_guard<std::mutex> guard{mu_};
    auto id = allocations_.size();
    std::string handle(ipc_handle_size, '\0');
    std::memcpy(handle.data(), magic, sizeof magic);
    std::memcpy(handle.data() + sizeof magic, &id, sizeof id);
    allocations_.emplace(handle, allocation{std::make_shared<std::vector<std::byte>>(size),
                                            device_id});
    return handle;
  }

  /// The bytes behind `handle`, for the test to fill in or read back.
  std::byte* bytes(const std::string& handle) {
    std::lock_guard<std::mutex> guard{mu_};
    return allocations_.at(handle).storage->data();
  }

  /// The handles opened and not yet closed.
  int open_handles() const { return open_->load(); }

  /// The copies made through `copy` so far.
  int copies() const {
    std::lock_guard<std::mutex> guard{mu_};
    return copies_;
  }

  // -- device_memory ---------------------------------------------------------

  int device_count() const noexcept override { return devices_; }

  result<buffer> allocate_pinned(size_t size) override {
    auto b = buffer::allocate(size);
    return buffer{b.owner(), b.data(), size, memory_type::cpu_pinned, 0};
  }

  result<buffer> allocate_device(size_t size, int64_t device_id) override {
    auto b = buffer::allocate(size);
    return buffer{b.owner(), b.data(), size, memory_type::gpu, device_id};
  }

  result<buffer> open_ipc_handle(std::string_view raw_handle, int64_t device_id,
                                 size_t size) override {
    if (raw_handle.size() != ipc_handle_size)
      return invalid_argument("a CUDA IPC handle has 64 bytes, not "
                              + std::to_string(raw_handle.size()));
    std::lock_guard<std::mutex> guard{mu_};
    auto i = allocations_.find(std::string{raw_handle});
    if (i == allocations_.end() || i->second.device_id != device_id)
      return unavailable("cudaIpcOpenMemHandle failed: invalid argument");
    auto storage = i->second.storage;
    if (size > storage->size())  // as cuda_memory's cuMemGetAddressRange check
      return invalid_argument("byte_size " + std::to_string(size) + " exceeds the "
                              + std::to_string(storage->size())
                              + " bytes of the allocation behind the CUDA IPC handle");
    ++*open_;
    // Holds the allocation and counts the close, as cudaIpcCloseMemHandle
    // would close it; safe to run after the provider is gone.
    std::shared_ptr<const void> owner{storage->data(),
                                      [storage, open = open_](const void*) { --*open; }};
    return buffer{std::move(owner), storage->data(), size, memory_type::gpu, device_id};
  }

  status copy(const buffer& to, const buffer& from) override {
    if (to.size() < from.size())
      return invalid_argument("cannot copy " + std::to_string(from.size()) + " bytes into "
                              + std::to_string(to.size()));
    if (!from.empty())
      std::memcpy(to.data(), from.data(), from.size());
    std::lock_guard<std::mutex> guard{mu_};
    ++copies_;
    return status::ok();
  }

 private:
  static constexpr char magic[8] = {'c', 'o', 'n', 'c', 'h', 'i', 'p', 'c'};

  struct allocation {
    std::shared_ptr<std::vector<std::byte>> storage;
    int64_t device_id;
  };

  int devices_;
  mutable std::mutex mu_;
  std::map<std::string, allocation> allocations_;  // guarded by mu_
  std::shared_ptr<std::atomic<int>> open_ = std::make_shared<std::atomic<int>>(0);
  int copies_ = 0;  // guarded by mu_
};

/// Installs a provider process-wide for one scope and restores the one
/// installed before.
class scoped_device_memory {
 public:
  explicit scoped_device_memory(std::shared_ptr<device_memory> provider)
    : previous_(get_device_memory()) {
    set_device_memory(std::move(provider));
  }
  ~scoped_device_memory() { set_device_memory(std::move(previous_)); }
  scoped_device_memory(const scoped_device_memory&) = delete;
  scoped_device_memory& operator=(const scoped_device_memory&) = delete;

 private:
  std::shared_ptr<device_memory> previous_;
};

} // namespace conch::runtime::test
