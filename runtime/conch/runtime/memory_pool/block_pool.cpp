#include "conch/runtime/memory_pool/block_pool.hpp"

namespace conch::runtime::memory_pool {

std::shared_ptr<block_pool> block_pool::make(buffer block) {
  return std::make_shared<block_pool>(std::move(block));
}

block_pool::block_pool(buffer block)
  : block_(std::move(block)), ranges_(block_.size(), pool_alignment) {}

std::optional<buffer> block_pool::allocate(size_t size) {
  std::optional<size_t> offset;
  {
    std::lock_guard<std::mutex> guard{mu_};
    offset = ranges_.allocate(size);
  }
  if (!offset)
    return std::nullopt;
  std::byte* data = block_.data() + *offset;
  // The owner returns the range; it holds the pool, and with it the block.
  std::shared_ptr<const void> owner{data, [pool = shared_from_this(), at = *offset,
                                           size](const void*) { pool->release(at, size); }};
  return buffer{std::move(owner), data, size, block_.type(), block_.device_id()};
}

pool_usage block_pool::usage() const {
  std::lock_guard<std::mutex> guard{mu_};
  return {ranges_.capacity(), ranges_.used()};
}

void block_pool::release(size_t offset, size_t size) {
  std::lock_guard<std::mutex> guard{mu_};
  ranges_.release(offset, size);
}

} // namespace conch::runtime::memory_pool
