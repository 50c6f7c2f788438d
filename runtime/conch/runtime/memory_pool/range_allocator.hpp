#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace conch::runtime::memory_pool {

/// Hands out aligned ranges of one block of `capacity` bytes: best fit, with
/// freed neighbours merged back together, every operation O(log n) in the
/// ranges free. It only does the bookkeeping (offsets and sizes); the memory
/// belongs to its caller. Not thread-safe.
class range_allocator {
 public:
  /// A block of `capacity` bytes; ranges start on multiples of `alignment`
  /// (a power of two) and their sizes are rounded up to one.
  explicit range_allocator(size_t capacity, size_t alignment = 256);

  /// The offset of a free range of at least `size` bytes (rounded up) now
  /// taken, or nullopt when no free range is that large. A zero-byte range
  /// still takes one alignment unit, so each offset has one owner.
  std::optional<size_t> allocate(size_t size);

  /// Gives back the range `allocate(size)` returned at `offset`. Never
  /// throws: should the bookkeeping fail for want of memory, the range (and
  /// the free neighbours it was merged with) stays out of use.
  void release(size_t offset, size_t size) noexcept;

  /// The block's size (rounded down to the alignment).
  size_t capacity() const noexcept { return capacity_; }
  /// The bytes taken (rounded sizes).
  size_t used() const noexcept { return used_; }
  /// The largest free range: the largest request that would succeed now.
  size_t largest_free() const noexcept;
  /// The number of separate free ranges (1 when nothing is taken).
  size_t free_ranges() const noexcept { return by_offset_.size(); }

 private:
  size_t round_up(size_t size) const noexcept;
  void insert_free(size_t offset, size_t size);
  void erase_free(std::map<size_t, size_t>::iterator at);

  size_t alignment_;
  size_t capacity_;
  size_t used_ = 0;
  std::map<size_t, size_t> by_offset_;         // free: offset -> size
  std::set<std::pair<size_t, size_t>> by_size_;  // free: (size, offset)
};

} // namespace conch::runtime::memory_pool
