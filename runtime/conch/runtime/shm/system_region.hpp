#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "conch/runtime/result.hpp"
#include "conch/runtime/shm/fault_guard.hpp"

namespace conch::runtime::shm {

/// A registered system shared-memory region: the bytes
/// [offset, offset + byte_size) of the POSIX shared-memory object `key`,
/// mapped read-write into this process. The mapping lasts as long as the
/// object: buffers that alias it share its ownership, so a region
/// unregistered while requests use it is unmapped only when they are done.
/// The mapping is guarded (`guarded_span`): the client may shrink the object
/// under it at any time, which tears the region instead of ending the
/// process. Immutable once made, but for that; thread-safe.
class system_region {
 public:
  // -- constructors ----------------------------------------------------------

  /// Opens `key` with shm_open and maps the range. INVALID_ARG when the
  /// object cannot be opened, when the range does not lie inside it, or
  /// when byte_size is 0; INTERNAL when mmap fails; UNAVAILABLE when
  /// guarded_span::capacity regions are mapped already. Never throws.
  static runtime::result<std::shared_ptr<const system_region>>
  map(std::string name, std::string key, uint64_t offset, uint64_t byte_size);

  system_region(const system_region&) = delete;
  system_region& operator=(const system_region&) = delete;

  /// Unmaps the range.
  ~system_region();

  // -- properties ------------------------------------------------------------

  const std::string& name() const noexcept { return name_; }
  const std::string& key() const noexcept { return key_; }
  uint64_t offset() const noexcept { return offset_; }
  uint64_t byte_size() const noexcept { return byte_size_; }

  /// The first byte of the region (the object's byte `offset`).
  std::byte* data() const noexcept { return static_cast<std::byte*>(base_) + lead_; }

  /// True once the object was found shorter than the region: some of the
  /// region's bytes read zeros and writes to them are lost.
  bool torn() const noexcept { return guard_.torn(); }

  /// INVALID_ARG naming the region when it is torn; OK otherwise.
  runtime::status check_intact() const;

 private:
  system_region(std::string name, std::string key, uint64_t offset, uint64_t byte_size,
                void* base, size_t lead, guarded_span guard) noexcept;

  std::string name_;
  std::string key_;
  uint64_t offset_;
  uint64_t byte_size_;
  void* base_;   // what mmap returned: `offset` rounded down to a page
  size_t lead_;  // the bytes between base_ and the region's first byte
  guarded_span guard_;
};

} // namespace conch::runtime::shm
