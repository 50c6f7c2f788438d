#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/shm/cuda_region.hpp"
#include "conch/runtime/shm/system_region.hpp"

namespace conch::runtime::shm {

/// The shared-memory regions clients registered with a server, system and
/// CUDA, by name (spec §1.16); one registry serves all the server's
/// frontends, and the two kinds share one namespace. Requests resolve their
/// shared-memory tensors through it to buffers that alias the region's bytes
/// and keep the region alive. As in Triton, a region unregistered while
/// requests use it stays registered (listed, its name taken, usable) until
/// the last of them is done; it is then dropped, and unmapped (or its CUDA
/// handle closed). Thread-safe: lookups share a lock, changes take it alone,
/// and nothing blocks while holding it beyond a map operation.
class region_registry {
 public:
  using region_ptr = std::shared_ptr<const system_region>;
  using cuda_region_ptr = std::shared_ptr<const cuda_region>;

  // -- constructors ----------------------------------------------------------

  /// A registry that opens CUDA regions and copies their bytes through
  /// `memory`: by default the process's provider when the registry is made.
  /// Without one (or without GPUs) CUDA regions are refused.
  explicit region_registry(std::shared_ptr<runtime::device_memory> memory
                           = runtime::get_device_memory());

  // -- changes ---------------------------------------------------------------

  /// Maps the POSIX shared-memory object `key` at [offset, offset +
  /// byte_size) and registers it as `name`. ALREADY_EXISTS when the name is
  /// taken by a region of either kind; the errors of system_region::map
  /// otherwise.
  runtime::status register_system(std::string name, std::string key, uint64_t offset,
                                  uint64_t byte_size);

  /// Removes system region `name` (an unknown name is not an error), or
  /// every system region when `name` is empty; one that requests use is
  /// removed when the last of them is done.
  void unregister_system(const std::string& name);

  /// Opens the CUDA IPC handle `raw_handle` of GPU `device_id` and registers
  /// its first `byte_size` bytes as `name`. ALREADY_EXISTS when the name is
  /// taken by a region of either kind; the errors of cuda_region::open
  /// otherwise.
  runtime::status register_cuda(std::string name, std::string_view raw_handle, int64_t device_id,
                                uint64_t byte_size);

  /// Removes CUDA region `name` (an unknown name is not an error), or every
  /// CUDA region when `name` is empty; one that requests use is removed when
  /// the last of them is done.
  void unregister_cuda(const std::string& name);

  // -- lookups ---------------------------------------------------------------

  /// Every system region, ordered by name, when `name` is empty; else the one
  /// called `name`, or NOT_FOUND "Unable to find system shared memory
  /// region: '<name>'" (a CUDA region's name too).
  runtime::result<std::vector<region_ptr>> system_status(const std::string& name) const;

  /// Every CUDA region, ordered by name, when `name` is empty; else the one
  /// called `name`, or NOT_FOUND "Unable to find cuda shared memory region:
  /// '<name>'" (a system region's name too).
  runtime::result<std::vector<cuda_region_ptr>> cuda_status(const std::string& name) const;

  /// The bytes [offset, offset + byte_size) of region `name` of either kind,
  /// as a buffer that shares the region's ownership: host memory for a
  /// system region, memory_type::gpu on its device for a CUDA one. NOT_FOUND
  /// for an unknown region; INVALID_ARG when the range does not lie inside
  /// it.
  runtime::result<runtime::buffer> resolve(const std::string& name, uint64_t offset,
                                           uint64_t byte_size) const;

  /// The system region called `name`; null when there is none.
  region_ptr find_system(const std::string& name) const;

  /// The number of registered regions of both kinds.
  size_t size() const;

  /// The provider that opened the CUDA regions, for copying their bytes;
  /// null when there is none.
  const std::shared_ptr<runtime::device_memory>& device_memory() const noexcept {
    return memory_;
  }

 private:
  struct state; // the regions, shared with the buffers that use them

  const std::shared_ptr<runtime::device_memory> memory_;
  const std::shared_ptr<state> state_;
};

} // namespace conch::runtime::shm
