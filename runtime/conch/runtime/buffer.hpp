#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "conch/runtime/memory_type.hpp"

namespace conch::runtime {

/// A ref-counted view of bytes: a pointer, a size, the memory type and device,
/// and the owner that keeps the bytes alive. Copies share the owner; slices
/// alias the same bytes. Thread-safe to copy; the bytes themselves are not
/// synchronised.
class buffer {
 public:
  // -- constructors ----------------------------------------------------------

  buffer() noexcept = default;

  /// Views `size` bytes at `data`, kept alive by `owner`.
  buffer(std::shared_ptr<const void> owner, std::byte* data, size_t size,
         memory_type type = memory_type::cpu, int64_t device_id = 0) noexcept
    : owner_(std::move(owner)), data_(data), size_(size), type_(type), device_id_(device_id) {}

  /// A new host buffer of `size` uninitialised bytes.
  static buffer allocate(size_t size);

  /// A new host buffer holding a copy of `size` bytes at `data`.
  static buffer copy_of(const void* data, size_t size);

  // -- properties ------------------------------------------------------------

  std::byte* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  memory_type type() const noexcept { return type_; }
  int64_t device_id() const noexcept { return device_id_; }
  const std::shared_ptr<const void>& owner() const noexcept { return owner_; }

  /// True when the bytes can be read by host code (CPU or pinned memory).
  bool host_accessible() const noexcept { return type_ != memory_type::gpu; }

  // -- views -----------------------------------------------------------------

  /// The bytes [offset, offset + size), sharing the owner. Requires that the
  /// range lies inside this buffer.
  buffer slice(size_t offset, size_t size) const noexcept {
    return {owner_, data_ + offset, size, type_, device_id_};
  }

 private:
  std::shared_ptr<const void> owner_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  memory_type type_ = memory_type::cpu;
  int64_t device_id_ = 0;
};

} // namespace conch::runtime
