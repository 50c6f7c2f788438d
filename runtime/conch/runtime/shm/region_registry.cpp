#include "conch/runtime/shm/region_registry.hpp"

#include <atomic>
#include <mutex>
#include <utility>

namespace conch::runtime::shm {

namespace {

runtime::status name_taken(const std::string& name) {
  return runtime::already_exists("shared memory region '" + name + "' already in manager");
}

/// A registered region, the requests using it (its leases), and whether it
/// was unregistered while they did.
template <class Region>
struct entry {
  std::shared_ptr<const Region> region;
  std::shared_ptr<std::atomic<int64_t>> leases = std::make_shared<std::atomic<int64_t>>(0);
  bool retiring = false;
};

template <class Region>
using entries = std::map<std::string, entry<Region>>;

// Every region of `regions` when `name` is empty, else the one called
// `name`, or `missing`.
template <class Region>
runtime::result<std::vector<std::shared_ptr<const Region>>>
lookup(const entries<Region>& regions, const std::string& name, const char* missing) {
  std::vector<std::shared_ptr<const Region>> out;
  if (name.empty()) {
    for (const auto& [n, e] : regions)
      out.push_back(e.region);
    return out;
  }
  auto i = regions.find(name);
  if (i == regions.end())
    return runtime::not_found(missing + name + "'");
  out.push_back(i->second.region);
  return out;
}

// Removes region `name` of `regions` (every region when `name` is empty)
// into `dropped`; one that requests use is marked retiring instead and goes
// with its last lease.
template <class Region>
void remove(entries<Region>& regions, const std::string& name,
            std::vector<std::shared_ptr<const void>>& dropped) {
  for (auto i = name.empty() ? regions.begin() : regions.find(name); i != regions.end();) {
    if (i->second.leases->load() > 0) {
      i->second.retiring = true;
      ++i;
    } else {
      dropped.push_back(std::move(i->second.region));
      i = regions.erase(i);
    }
    if (!name.empty())
      break;
  }
}

// The bytes [offset, offset + byte_size) of a region whose bytes start at
// `base`, kept alive by `owner`.
runtime::result<runtime::buffer> slice(const std::string& name, std::shared_ptr<const void> owner,
                                       std::byte* base, uint64_t region_size, uint64_t offset,
                                       uint64_t byte_size, runtime::memory_type type,
                                       int64_t device_id) {
  if (offset > region_size)
    return runtime::invalid_argument("Invalid offset for shared memory region: '" + name + "'");
  if (byte_size > region_size - offset)
    return runtime::invalid_argument("Invalid offset + byte size for shared memory region: '"
                                     + name + "'");
  auto* data = base + offset;
  return runtime::buffer{std::shared_ptr<const void>{std::move(owner), data}, data,
                         static_cast<size_t>(byte_size), type, device_id};
}

} // namespace

/// The regions, shared with the leases of the buffers that use them, so that
/// a lease may drop its region whenever its request ends, the registry gone
/// or not.
struct region_registry::state : std::enable_shared_from_this<state> {
  mutable std::shared_mutex mutex;
  entries<system_region> system;  // guarded by mutex
  entries<cuda_region> cuda;      // guarded by mutex

  // True when a region of either kind is called `name`. Requires the lock.
  bool taken(const std::string& name) const {
    return system.count(name) != 0 || cuda.count(name) != 0;
  }

  /// What a request's buffer holds while it uses a region: the region, and
  /// its place in the region's leases.
  template <class Region>
  struct lease {
    std::shared_ptr<state> owner;
    entries<Region> state::*regions;
    std::string name;
    std::shared_ptr<const Region> region;
    std::shared_ptr<std::atomic<int64_t>> leases;

    lease(std::shared_ptr<state> o, entries<Region> state::*r, std::string n,
          const entry<Region>& e)
      : owner(std::move(o)), regions(r), name(std::move(n)), region(e.region), leases(e.leases) {
      leases->fetch_add(1);
    }
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;

    ~lease() {
      if (leases->fetch_sub(1) == 1)
        owner->drop_if_retired(regions, name, region.get());
    }
  };

  /// A lease on `regions`' entry `name` (which the caller found under the
  /// lock, shared or not).
  template <class Region>
  std::shared_ptr<const void> lease_of(entries<Region> state::*regions, const std::string& name,
                                       const entry<Region>& e) {
    return std::make_shared<lease<Region>>(shared_from_this(), regions, name, e);
  }

  /// Drops region `region`, called `name`, if it was unregistered and no
  /// request uses it any more.
  template <class Region>
  void drop_if_retired(entries<Region> state::*regions, const std::string& name,
                       const void* region) noexcept {
    std::shared_ptr<const void> dropped; // released after the lock
    std::unique_lock guard{mutex};
    auto& map = this->*regions;
    auto i = map.find(name);
    if (i == map.end() || i->second.region.get() != region || !i->second.retiring
        || i->second.leases->load() > 0)
      return;
    dropped = std::move(i->second.region);
    map.erase(i);
  }
};

region_registry::region_registry(std::shared_ptr<runtime::device_memory> memory)
  : memory_(std::move(memory)), state_(std::make_shared<state>()) {}

runtime::status region_registry::register_system(std::string name, std::string key,
                                                 uint64_t offset, uint64_t byte_size) {
  {
    std::shared_lock guard{state_->mutex};
    if (state_->taken(name))
      return name_taken(name);
  }
  // Mapped outside the lock: opening and mapping are system calls.
  auto region = system_region::map(name, std::move(key), offset, byte_size);
  if (!region)
    return region.error();
  std::unique_lock guard{state_->mutex};
  if (state_->taken(name))  // registered meanwhile by another request
    return name_taken(name);
  state_->system[std::move(name)].region = std::move(*region);
  return runtime::status::ok();
}

void region_registry::unregister_system(const std::string& name) {
  std::vector<std::shared_ptr<const void>> dropped;  // unmapped after the lock is released
  std::unique_lock guard{state_->mutex};
  remove(state_->system, name, dropped);
}

runtime::status region_registry::register_cuda(std::string name, std::string_view raw_handle,
                                               int64_t device_id, uint64_t byte_size) {
  {
    std::shared_lock guard{state_->mutex};
    if (state_->taken(name))
      return name_taken(name);
  }
  // Opened outside the lock: opening a handle is a driver call.
  auto region = cuda_region::open(memory_.get(), name, raw_handle, device_id, byte_size);
  if (!region)
    return region.error();
  std::unique_lock guard{state_->mutex};
  if (state_->taken(name))  // registered meanwhile; the handle closes as `region` goes
    return name_taken(name);
  state_->cuda[std::move(name)].region = std::move(*region);
  return runtime::status::ok();
}

void region_registry::unregister_cuda(const std::string& name) {
  std::vector<std::shared_ptr<const void>> dropped;  // closed after the lock is released
  std::unique_lock guard{state_->mutex};
  remove(state_->cuda, name, dropped);
}

runtime::result<std::vector<region_registry::region_ptr>>
region_registry::system_status(const std::string& name) const {
  std::shared_lock guard{state_->mutex};
  return lookup(state_->system, name, "Unable to find system shared memory region: '");
}

runtime::result<std::vector<region_registry::cuda_region_ptr>>
region_registry::cuda_status(const std::string& name) const {
  std::shared_lock guard{state_->mutex};
  return lookup(state_->cuda, name, "Unable to find cuda shared memory region: '");
}

runtime::result<runtime::buffer> region_registry::resolve(const std::string& name,
                                                          uint64_t offset,
                                                          uint64_t byte_size) const {
  region_ptr system;
  cuda_region_ptr cuda;
  std::shared_ptr<const void> held;
  {
    // The lease is taken under the lock: an unregister sees it.
    std::shared_lock guard{state_->mutex};
    if (auto i = state_->system.find(name); i != state_->system.end()) {
      system = i->second.region;
      held = state_->lease_of(&state::system, name, i->second);
    } else if (auto j = state_->cuda.find(name); j != state_->cuda.end()) {
      cuda = j->second.region;
      held = state_->lease_of(&state::cuda, name, j->second);
    } else {
      return runtime::not_found("Unable to find shared memory region: '" + name + "'");
    }
  }
  if (system) {
    guarded_span::ensure_installed();
    CONCH_RUNTIME_RETURN_IF_ERROR(system->check_intact());
    return slice(name, std::move(held), system->data(), system->byte_size(), offset, byte_size,
                 runtime::memory_type::cpu, 0);
  }
  const auto& bytes = cuda->bytes();
  return slice(name, std::move(held), bytes.data(), bytes.size(), offset, byte_size,
               bytes.type(), bytes.device_id());
}

region_registry::region_ptr region_registry::find_system(const std::string& name) const {
  std::shared_lock guard{state_->mutex};
  auto i = state_->system.find(name);
  return i == state_->system.end() ? nullptr : i->second.region;
}

size_t region_registry::size() const {
  std::shared_lock guard{state_->mutex};
  return state_->system.size() + state_->cuda.size();
}

} // namespace conch::runtime::shm
