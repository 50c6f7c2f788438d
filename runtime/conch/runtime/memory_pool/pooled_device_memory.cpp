#include "conch/runtime/memory_pool/pooled_device_memory.hpp"

namespace conch::runtime::memory_pool {

pooled_device_memory::pooled_device_memory(
  std::shared_ptr<device_memory> inner, std::shared_ptr<block_pool> pinned,
  std::map<int64_t, std::shared_ptr<block_pool>> devices)
  : inner_(std::move(inner)), pinned_(std::move(pinned)), devices_(std::move(devices)) {}

result<buffer> pooled_device_memory::allocate_pinned(size_t size) {
  if (pinned_) {
    if (auto out = pinned_->allocate(size))
      return std::move(*out);
  }
  return inner_->allocate_pinned(size);
}

result<buffer> pooled_device_memory::allocate_device(size_t size, int64_t device_id) {
  if (auto pool = devices_.find(device_id); pool != devices_.end()) {
    if (auto out = pool->second->allocate(size))
      return std::move(*out);
  }
  return inner_->allocate_device(size, device_id);
}

pool_usage pooled_device_memory::pinned_pool() const {
  return pinned_ ? pinned_->usage() : pool_usage{};
}

pool_usage pooled_device_memory::device_pool(int64_t device_id) const {
  auto pool = devices_.find(device_id);
  return pool == devices_.end() ? pool_usage{} : pool->second->usage();
}

} // namespace conch::runtime::memory_pool
