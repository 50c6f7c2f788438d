#include "conch/runtime/buffer.hpp"

#include <cstring>

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

// One allocation holds both the bytes and the reference count: the storage is
// a struct whose trailing array is over-allocated.
struct host_block {
  static std::shared_ptr<host_block> make(size_t size) {
    auto* raw = ::operator new(sizeof(host_block) + size);
    return std::shared_ptr<host_block>(new (raw) host_block, [](host_block* p) {
      p->~host_block();
      ::operator delete(p);
    });
  }
  std::byte* bytes() noexcept { return reinterpret_cast<std::byte*>(this + 1); }
  alignas(std::max_align_t) unsigned char pad[1];
};

} // namespace

buffer buffer::allocate(size_t size) {
  auto block = host_block::make(size);
  auto* data = block->bytes();
  return {std::move(block), data, size};
}

buffer buffer::copy_of(const void* data, size_t size) {
  auto out = allocate(size);
  if (size > 0)
    std::memcpy(out.data(), data, size);
  return out;
}

} // namespace conch::runtime
