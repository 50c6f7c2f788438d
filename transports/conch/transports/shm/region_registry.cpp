#include "conch/transports/shm/region_registry.hpp"

#include <mutex>

namespace conch::transports::shm {

namespace {

runtime::status name_taken(const std::string& name) {
  return runtime::already_exists("shared memory region '" + name + "' already in manager");
}

// Every value of `regions` when `name` is empty, else the one called
// `name`, or `missing`.
template <class Ptr>
runtime::result<std::vector<Ptr>> lookup(const std::map<std::string, Ptr>& regions,
                                         const std::string& name, const char* missing) {
  std::vector<Ptr> out;
  if (name.empty()) {
    for (const auto& entry : regions)
      out.push_back(entry.second);
    return out;
  }
  auto i = regions.find(name);
  if (i == regions.end())
    return runtime::not_found(missing + name + "'");
  out.push_back(i->second);
  return out;
}

// Moves region `name` out of `regions` into `dropped`, or every region when
// `name` is empty.
template <class Ptr>
void remove(std::map<std::string, Ptr>& regions, const std::string& name,
            std::vector<Ptr>& dropped) {
  if (name.empty()) {
    for (auto& entry : regions)
      dropped.push_back(std::move(entry.second));
    regions.clear();
    return;
  }
  auto i = regions.find(name);
  if (i == regions.end())
    return;
  dropped.push_back(std::move(i->second));
  regions.erase(i);
}

// The bytes [offset, offset + byte_size) of a region whose bytes start at
// `base`, kept alive by `region`.
runtime::result<runtime::buffer> slice(const std::string& name,
                                       std::shared_ptr<const void> region, std::byte* base,
                                       uint64_t region_size, uint64_t offset, uint64_t byte_size,
                                       runtime::memory_type type, int64_t device_id) {
  if (offset > region_size)
    return runtime::invalid_argument("Invalid offset for shared memory region: '" + name + "'");
  if (byte_size > region_size - offset)
    return runtime::invalid_argument("Invalid offset + byte size for shared memory region: '"
                                     + name + "'");
  auto* data = base + offset;
  return runtime::buffer{std::shared_ptr<const void>{std::move(region), data}, data,
                         static_cast<size_t>(byte_size), type, device_id};
}

} // namespace

region_registry::region_registry(std::shared_ptr<runtime::device_memory> memory)
  : memory_(std::move(memory)) {}

bool region_registry::taken(const std::string& name) const {
  return system_.count(name) != 0 || cuda_.count(name) != 0;
}

runtime::status region_registry::register_system(std::string name, std::string key,
                                                 uint64_t offset, uint64_t byte_size) {
  {
    std::shared_lock guard{mutex_};
    if (taken(name))
      return name_taken(name);
  }
  // Mapped outside the lock: opening and mapping are system calls.
  auto region = system_region::map(name, std::move(key), offset, byte_size);
  if (!region)
    return region.error();
  std::unique_lock guard{mutex_};
  if (taken(name))  // registered meanwhile by another request
    return name_taken(name);
  system_.emplace(std::move(name), std::move(*region));
  return runtime::status::ok();
}

void region_registry::unregister_system(const std::string& name) {
  std::vector<region_ptr> dropped;  // unmapped after the lock is released
  std::unique_lock guard{mutex_};
  remove(system_, name, dropped);
}

runtime::status region_registry::register_cuda(std::string name, std::string_view raw_handle,
                                               int64_t device_id, uint64_t byte_size) {
  {
    std::shared_lock guard{mutex_};
    if (taken(name))
      return name_taken(name);
  }
  // Opened outside the lock: opening a handle is a driver call.
  auto region = cuda_region::open(memory_.get(), name, raw_handle, device_id, byte_size);
  if (!region)
    return region.error();
  std::unique_lock guard{mutex_};
  if (taken(name))  // registered meanwhile; the handle closes as `region` goes
    return name_taken(name);
  cuda_.emplace(std::move(name), std::move(*region));
  return runtime::status::ok();
}

void region_registry::unregister_cuda(const std::string& name) {
  std::vector<cuda_region_ptr> dropped;  // closed after the lock is released
  std::unique_lock guard{mutex_};
  remove(cuda_, name, dropped);
}

runtime::result<std::vector<region_registry::region_ptr>>
region_registry::system_status(const std::string& name) const {
  std::shared_lock guard{mutex_};
  return lookup(system_, name, "Unable to find system shared memory region: '");
}

runtime::result<std::vector<region_registry::cuda_region_ptr>>
region_registry::cuda_status(const std::string& name) const {
  std::shared_lock guard{mutex_};
  return lookup(cuda_, name, "Unable to find cuda shared memory region: '");
}

runtime::result<runtime::buffer> region_registry::resolve(const std::string& name,
                                                          uint64_t offset,
                                                          uint64_t byte_size) const {
  region_ptr system;
  cuda_region_ptr cuda;
  {
    std::shared_lock guard{mutex_};
    if (auto i = system_.find(name); i != system_.end())
      system = i->second;
    else if (auto j = cuda_.find(name); j != cuda_.end())
      cuda = j->second;
    else
      return runtime::not_found("Unable to find shared memory region: '" + name + "'");
  }
  if (system) {
    guarded_span::ensure_installed();
    CONCH_RUNTIME_RETURN_IF_ERROR(system->check_intact());
    return slice(name, system, system->data(), system->byte_size(), offset, byte_size,
                 runtime::memory_type::cpu, 0);
  }
  const auto& bytes = cuda->bytes();
  return slice(name, cuda, bytes.data(), bytes.size(), offset, byte_size, bytes.type(),
               bytes.device_id());
}

region_registry::region_ptr region_registry::find_system(const std::string& name) const {
  std::shared_lock guard{mutex_};
  auto i = system_.find(name);
  return i == system_.end() ? nullptr : i->second;
}

size_t region_registry::size() const {
  std::shared_lock guard{mutex_};
  return system_.size() + cuda_.size();
}

} // namespace conch::transports::shm
