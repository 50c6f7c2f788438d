#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/memory_pool/range_allocator.hpp"

namespace conch::runtime::memory_pool {

/// The alignment of every range a pool hands out, as cudaMalloc's.
inline constexpr size_t pool_alignment = 256;

/// One block of memory allocated up front (pinned host memory, or memory on
/// one GPU) that smaller buffers are cut from. A buffer cut from it keeps the
/// pool alive and gives its range back when its last copy goes, from any
/// thread. Thread-safe.
class block_pool : public std::enable_shared_from_this<block_pool> {
 public:
  /// A pool over `block`, which it keeps.
  static std::shared_ptr<block_pool> make(buffer block);

  /// `size` bytes from the pool, in the block's memory type and device, or
  /// nullopt when no free range is large enough (the caller then allocates
  /// elsewhere). Ranges are aligned to pool_alignment. A GPU range is handed
  /// out again as soon as its last buffer goes, without waiting for work
  /// still queued on it (cudaFree would wait; Triton's CUDA pool does not
  /// either): whoever hands GPU memory to a stream keeps the buffer until
  /// that work is done.
  std::optional<buffer> allocate(size_t size);

  /// The pool's size and the bytes now handed out.
  pool_usage usage() const;

  memory_type type() const noexcept { return block_.type(); }
  int64_t device_id() const noexcept { return block_.device_id(); }

  /// Use make(): buffers cut from the pool hold it through shared_from_this.
  explicit block_pool(buffer block);

 private:
  void release(size_t offset, size_t size);

  buffer block_;
  mutable std::mutex mu_;
  range_allocator ranges_;  // guarded by mu_
};

} // namespace conch::runtime::memory_pool
