#pragma once

#include <map>
#include <memory>

#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/memory_pool/block_pool.hpp"

namespace conch::runtime::memory_pool {

/// A device memory provider that serves pinned and GPU allocations from
/// pools allocated up front (Triton's pinned memory pool and per-GPU CUDA
/// memory pools) and passes everything else, and what a pool cannot hold, to
/// the provider it wraps. Thread-safe.
class pooled_device_memory final : public device_memory {
 public:
  /// `pinned` may be null (no pinned pool); `devices` maps a GPU to its pool.
  pooled_device_memory(std::shared_ptr<device_memory> inner, std::shared_ptr<block_pool> pinned,
                       std::map<int64_t, std::shared_ptr<block_pool>> devices);

  int device_count() const noexcept override { return inner_->device_count(); }
  result<buffer> allocate_pinned(size_t size) override;
  result<buffer> allocate_device(size_t size, int64_t device_id) override;
  result<buffer> open_ipc_handle(std::string_view raw_handle, int64_t device_id,
                                 size_t size) override {
    return inner_->open_ipc_handle(raw_handle, device_id, size);
  }
  status copy(const buffer& to, const buffer& from) override { return inner_->copy(to, from); }
  status synchronize(int64_t device_id) override { return inner_->synchronize(device_id); }
  pool_usage pinned_pool() const override;
  pool_usage device_pool(int64_t device_id) const override;

  /// The provider this one wraps.
  const std::shared_ptr<device_memory>& inner() const noexcept { return inner_; }

 private:
  std::shared_ptr<device_memory> inner_;
  std::shared_ptr<block_pool> pinned_;
  std::map<int64_t, std::shared_ptr<block_pool>> devices_;
};

} // namespace conch::runtime::memory_pool
