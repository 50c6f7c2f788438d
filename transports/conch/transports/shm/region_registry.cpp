#include "conch/transports/shm/region_registry.hpp"

#include <mutex>

namespace conch::transports::shm {

runtime::status region_registry::register_system(std::string name, std::string key,
                                                 uint64_t offset, uint64_t byte_size) {
  {
    std::shared_lock guard{mutex_};
    if (regions_.count(name) != 0)
      return runtime::already_exists("shared memory region '" + name + "' already in manager");
  }
  // Mapped outside the lock: opening and mapping are system calls.
  auto region = system_region::map(name, std::move(key), offset, byte_size);
  if (!region)
    return region.error();
  std::unique_lock guard{mutex_};
  if (regions_.count(name) != 0)  // registered meanwhile by another request
    return runtime::already_exists("shared memory region '" + name + "' already in manager");
  regions_.emplace(std::move(name), std::move(*region));
  return runtime::status::ok();
}

void region_registry::unregister_system(const std::string& name) {
  std::vector<region_ptr> dropped;  // unmapped after the lock is released
  std::unique_lock guard{mutex_};
  if (name.empty()) {
    for (auto& entry : regions_)
      dropped.push_back(std::move(entry.second));
    regions_.clear();
    return;
  }
  auto i = regions_.find(name);
  if (i == regions_.end())
    return;
  dropped.push_back(std::move(i->second));
  regions_.erase(i);
}

runtime::result<std::vector<region_registry::region_ptr>>
region_registry::system_status(const std::string& name) const {
  std::shared_lock guard{mutex_};
  std::vector<region_ptr> out;
  if (name.empty()) {
    for (const auto& entry : regions_)
      out.push_back(entry.second);
    return out;
  }
  auto i = regions_.find(name);
  if (i == regions_.end())
    return runtime::not_found("Unable to find system shared memory region: '" + name + "'");
  out.push_back(i->second);
  return out;
}

runtime::result<runtime::buffer> region_registry::resolve(const std::string& name,
                                                          uint64_t offset,
                                                          uint64_t byte_size) const {
  region_ptr region;
  {
    std::shared_lock guard{mutex_};
    auto i = regions_.find(name);
    if (i == regions_.end())
      return runtime::not_found("Unable to find shared memory region: '" + name + "'");
    region = i->second;
  }
  if (offset > region->byte_size())
    return runtime::invalid_argument("Invalid offset for shared memory region: '" + name + "'");
  if (byte_size > region->byte_size() - offset)
    return runtime::invalid_argument("Invalid offset + byte size for shared memory region: '"
                                     + name + "'");
  auto* data = region->data() + offset;
  return runtime::buffer{std::shared_ptr<const void>{region, data}, data,
                         static_cast<size_t>(byte_size)};
}

size_t region_registry::size() const {
  std::shared_lock guard{mutex_};
  return regions_.size();
}

} // namespace conch::transports::shm
