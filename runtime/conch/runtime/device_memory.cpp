#include "conch/runtime/device_memory.hpp"

#include <atomic>
#include <mutex>

namespace conch::runtime {

namespace {

// Installed once at start-up and read when outputs are allocated in a memory
// type other than CPU; a mutex is fine off the CPU fast path.
std::mutex provider_mu;
std::shared_ptr<device_memory> provider;

} // namespace

void set_device_memory(std::shared_ptr<device_memory> p) {
  std::lock_guard<std::mutex> guard{provider_mu};
  provider = std::move(p);
}

std::shared_ptr<device_memory> set_device_memory_if_absent(std::shared_ptr<device_memory> p) {
  std::lock_guard<std::mutex> guard{provider_mu};
  if (!provider)
    provider = std::move(p);
  return provider;
}

bool replace_device_memory(const std::shared_ptr<device_memory>& expected,
                           std::shared_ptr<device_memory> p) {
  std::lock_guard<std::mutex> guard{provider_mu};
  if (provider != expected)
    return false;
  provider = std::move(p);
  return true;
}

std::shared_ptr<device_memory> get_device_memory() {
  std::lock_guard<std::mutex> guard{provider_mu};
  return provider;
}

result<buffer> preferred_allocator::allocate(const std::string&, size_t size, memory_type type,
                                             int64_t device_id) {
  if (type != memory_type::cpu) {
    if (auto p = get_device_memory(); p && p->device_count() > 0) {
      auto out = type == memory_type::gpu ? p->allocate_device(size, device_id)
                                          : p->allocate_pinned(size);
      if (out)
        return out;
    }
  }
  return buffer::allocate(size);
}

} // namespace conch::runtime
