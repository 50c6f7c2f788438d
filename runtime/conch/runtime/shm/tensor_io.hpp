#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/response_allocator.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/tensor.hpp"
#include "conch/runtime/shm/region_ref.hpp"
#include "conch/runtime/shm/region_registry.hpp"

namespace conch::runtime::shm {

/// Gives input `t` the bytes `ref` names. In a system region they are
/// aliased (no copy) and keep the region mapped while the request lives; in
/// a CUDA region they are copied to host memory through the registry's
/// device memory provider, since backends read inputs in host memory.
/// NOT_FOUND for an unknown region; INVALID_ARG for a range outside it or a
/// size that disagrees with the input's datatype and shape; INTERNAL when
/// the copy fails. Protocol-neutral; any thread (a copy blocks until done).
runtime::status resolve_input(const region_registry& registry, const region_ref& ref,
                              runtime::tensor& t);

/// The shared-memory outputs of one request: an allocator that places each
/// of them straight into its region when the backend can write there (other
/// outputs go to host memory), and the step that makes sure a response's
/// outputs are there, copying through the device memory provider to or
/// from a CUDA region. It also watches the system regions the request's
/// inputs and outputs live in: a response whose region was torn while the
/// request used it (its object shrank; see guarded_span) is an error. Holds
/// the regions until it goes. Thread-safe.
class output_regions final : public runtime::response_allocator {
 public:
  /// (output name, where it goes) for each output the client placed in
  /// shared memory.
  using targets = std::vector<std::pair<std::string, region_ref>>;

  /// The targets resolved now, watching them and the system regions named
  /// in `input_regions` (where the request's inputs were resolved from);
  /// null when both are empty. The errors of region_registry::resolve.
  static runtime::result<std::shared_ptr<output_regions>>
  resolve(const region_registry& registry, const targets& wanted,
          const std::vector<std::string>& input_regions = {});

  /// The target region of output `name` when it has one and it is a system
  /// region, or a CUDA region on the GPU `type` and `device_id` ask for;
  /// host memory otherwise. INVALID_ARG when the output needs more bytes
  /// than the client's region holds.
  runtime::result<runtime::buffer> allocate(const std::string& name, size_t size,
                                            runtime::memory_type type,
                                            int64_t device_id) override;

  /// Copies each output of `r` that has a target and does not lie in it
  /// already (host memory the allocator gave, or a backend that did not use
  /// it) into the target. INVALID_ARG when one is larger than its region;
  /// INTERNAL when a copy to or from device memory fails or there is no
  /// provider to make it. Blocks until the copies are done.
  runtime::status deliver(const runtime::inference_response& r) const;

  /// INVALID_ARG when a watched region was torn, and so the response may
  /// hold zeros read in place of the client's inputs, or lost outputs. Call
  /// it after the response was delivered and encoded, the last time its
  /// bytes are read.
  runtime::status verify() const;

  /// True when output `name` goes to a region.
  bool contains(const std::string& name) const { return targets_.count(name) != 0; }

 private:
  // Copies `from` into `to` for output `name`.
  runtime::status copy(const std::string& name, const runtime::buffer& to,
                       const runtime::buffer& from) const;

  std::map<std::string, runtime::buffer> targets_;  // read-only once made
  std::vector<region_registry::region_ptr> watched_; // read-only once made
  std::shared_ptr<runtime::device_memory> memory_;  // copies to and from CUDA regions
};

} // namespace conch::runtime::shm
