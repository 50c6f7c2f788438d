#include "conch/runtime/response_allocator.hpp"

namespace conch::runtime {

result<buffer> cpu_allocator::allocate(const std::string&, size_t size, memory_type, int64_t) {
  return buffer::allocate(size);
}

const std::shared_ptr<cpu_allocator>& cpu_allocator::instance() {
  static const auto x = std::make_shared<cpu_allocator>();
  return x;
}

} // namespace conch::runtime
