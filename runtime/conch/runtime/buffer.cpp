#include "conch/runtime/buffer.hpp"

#include <cassert>
#include <cstring>
#include <limits>
#include <new>

namespace conch::runtime {

std::string_view memory_type_name(memory_type t) noexcept {
  switch (t) {
    case memory_type::cpu: return "CPU";
    case memory_type::cpu_pinned: return "CPU_PINNED";
    case memory_type::gpu: return "GPU";
  }
  return "CPU";
}

namespace {

// The bytes of a host buffer live in the same allocation as its reference
// count: allocate_shared asks this allocator for the shared state, and it
// over-allocates, placing `size` bytes after that state (aligned as
// operator new aligns) and telling the caller where.
struct tail_request {
  size_t size;
  std::byte* bytes = nullptr;
};

template <class T>
struct tail_allocator {
  using value_type = T;

  explicit tail_allocator(tail_request* r) noexcept : request(r) {}
  template <class U>
  tail_allocator(const tail_allocator<U>& other) noexcept : request(other.request) {}

  static size_t head_bytes(size_t n) noexcept {
    constexpr size_t align = alignof(std::max_align_t);
    return (n * sizeof(T) + align - 1) / align * align;
  }

  // `request` is read here only: the copy the shared state keeps (for
  // deallocate) outlives it.
  T* allocate(size_t n) {
    assert(n == 1);
    if (request->size > std::numeric_limits<size_t>::max() - head_bytes(n))
      throw std::bad_array_new_length{};
    auto* raw = static_cast<std::byte*>(::operator new(head_bytes(n) + request->size));
    request->bytes = raw + head_bytes(n);
    return reinterpret_cast<T*>(raw);
  }
  void deallocate(T* p, size_t) noexcept { ::operator delete(static_cast<void*>(p)); }

  template <class U>
  bool operator==(const tail_allocator<U>& other) const noexcept {
    return request == other.request;
  }
  template <class U>
  bool operator!=(const tail_allocator<U>& other) const noexcept {
    return !(*this == other);
  }

  tail_request* request;
};

// What the shared state holds besides the count: nothing; the bytes follow it.
struct host_bytes {};

} // namespace

buffer buffer::allocate(size_t size) {
  tail_request request{size};
  auto owner = std::allocate_shared<host_bytes>(tail_allocator<host_bytes>{&request});
  return {std::move(owner), request.bytes, size};
}

buffer buffer::copy_of(const void* data, size_t size) {
  auto out = allocate(size);
  if (size > 0)
    std::memcpy(out.data(), data, size);
  return out;
}

} // namespace conch::runtime
