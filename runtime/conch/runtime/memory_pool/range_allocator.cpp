#include "conch/runtime/memory_pool/range_allocator.hpp"

#include <cassert>
#include <limits>

namespace conch::runtime::memory_pool {

range_allocator::range_allocator(size_t capacity, size_t alignment)
  : alignment_(alignment), capacity_(capacity & ~(alignment - 1)) {
  assert(alignment != 0 && (alignment & (alignment - 1)) == 0);
  if (capacity_ > 0)
    insert_free(0, capacity_);
}

size_t range_allocator::round_up(size_t size) const noexcept {
  if (size == 0)
    return alignment_;
  if (size > std::numeric_limits<size_t>::max() - (alignment_ - 1))
    return 0;  // overflow: no block is this large
  return (size + alignment_ - 1) & ~(alignment_ - 1);
}

std::optional<size_t> range_allocator::allocate(size_t size) {
  size_t want = round_up(size);
  if (want == 0 || want > capacity_)
    return std::nullopt;
  auto fit = by_size_.lower_bound({want, 0});
  if (fit == by_size_.end())
    return std::nullopt;
  auto [have, offset] = *fit;
  erase_free(by_offset_.find(offset));
  if (have > want)
    insert_free(offset + want, have - want);
  used_ += want;
  return offset;
}

void range_allocator::release(size_t offset, size_t size) noexcept {
  size_t length = round_up(size);
  assert(length != 0 && offset + length <= capacity_);
  // The free range is put back below before used_ goes down: when that
  // fails (memory for an index node), the range stays taken rather than
  // the process ending in a deleter.
  size_t taken = length;
  // Merge with the free range that ends where this one starts, and with the
  // one that starts where it ends.
  auto next = by_offset_.lower_bound(offset);
  if (next != by_offset_.begin()) {
    auto before = std::prev(next);
    if (before->first + before->second == offset) {
      offset = before->first;
      length += before->second;
      erase_free(before);
    }
  }
  if (next != by_offset_.end() && next->first == offset + length) {
    length += next->second;
    erase_free(next);
  }
  try {
    insert_free(offset, length);
  } catch (...) {
    return;  // lost to this pool (with the neighbours merged into it)
  }
  used_ -= taken;
}

size_t range_allocator::largest_free() const noexcept {
  return by_size_.empty() ? 0 : by_size_.rbegin()->first;
}

void range_allocator::insert_free(size_t offset, size_t size) {
  auto [at, added] = by_offset_.emplace(offset, size);
  try {
    by_size_.emplace(size, offset);
  } catch (...) {
    by_offset_.erase(at);
    throw;
  }
}

void range_allocator::erase_free(std::map<size_t, size_t>::iterator at) {
  by_size_.erase({at->second, at->first});
  by_offset_.erase(at);
}

} // namespace conch::runtime::memory_pool
