#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/result.hpp"
#include "conch/transports/shm/system_region.hpp"

namespace conch::transports::shm {

/// The shared-memory regions clients registered with a server, by name
/// (spec §1.16); one registry serves all the server's frontends. Requests resolve their shared-memory tensors through it to
/// buffers that alias the mapped bytes and keep the mapping alive, so a
/// region unregistered while in use is unmapped once the last request using
/// it is done. Thread-safe: lookups share a lock, changes take it alone,
/// and nothing blocks while holding it beyond a map operation.
class region_registry {
 public:
  using region_ptr = std::shared_ptr<const system_region>;

  // -- changes ---------------------------------------------------------------

  /// Maps the POSIX shared-memory object `key` at [offset, offset +
  /// byte_size) and registers it as `name`. ALREADY_EXISTS when the name is
  /// taken; the errors of system_region::map otherwise.
  runtime::status register_system(std::string name, std::string key, uint64_t offset,
                                  uint64_t byte_size);

  /// Removes region `name` (an unknown name is not an error), or every
  /// system region when `name` is empty.
  void unregister_system(const std::string& name);

  // -- lookups ---------------------------------------------------------------

  /// Every system region, ordered by name, when `name` is empty; else the one
  /// called `name`, or NOT_FOUND "Unable to find system shared memory
  /// region: '<name>'".
  runtime::result<std::vector<region_ptr>> system_status(const std::string& name) const;

  /// The bytes [offset, offset + byte_size) of region `name`, as a buffer
  /// that shares the mapping's ownership. NOT_FOUND for an unknown region;
  /// INVALID_ARG when the range does not lie inside it.
  runtime::result<runtime::buffer> resolve(const std::string& name, uint64_t offset,
                                           uint64_t byte_size) const;

  /// The number of registered regions.
  size_t size() const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, region_ptr> regions_;  // guarded by mutex_
};

} // namespace conch::transports::shm
