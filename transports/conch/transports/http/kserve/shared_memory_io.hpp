#pragma once

#include <map>
#include <memory>
#include <string>

#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/response_allocator.hpp"
#include "conch/runtime/result.hpp"
#include "conch/transports/http/kserve/codec/decoded_infer.hpp"
#include "conch/transports/shm/region_registry.hpp"

namespace conch::transports::http::kserve {

/// Gives every shared-memory input of `decoded` its data: the bytes of its
/// region, aliased (no copy), which keep the region mapped while the request
/// lives. NOT_FOUND for an unknown region; INVALID_ARG for a range outside
/// it or a size that disagrees with the input's datatype and shape. Runs on
/// the loop thread.
runtime::status resolve_shared_memory_inputs(const shm::region_registry& registry,
                                             codec::decoded_infer& decoded);

/// The shared-memory outputs of one request: an allocator that places each
/// of them straight into its region (other outputs go to host memory), and
/// the step that makes sure a response's outputs are there. Holds the
/// regions mapped until it goes. Thread-safe.
class shared_memory_outputs final : public runtime::response_allocator {
 public:
  /// The targets of `decoded`'s shared-memory outputs, resolved now; null
  /// when it has none. The errors of region_registry::resolve.
  static runtime::result<std::shared_ptr<shared_memory_outputs>>
  resolve(const shm::region_registry& registry, const codec::decoded_infer& decoded);

  /// The target region of output `name` when it has one; host memory
  /// otherwise. INVALID_ARG when the output needs more bytes than the
  /// client's region holds.
  runtime::result<runtime::buffer> allocate(const std::string& name, size_t size,
                                            runtime::memory_type type,
                                            int64_t device_id) override;

  /// Copies each output of `r` that has a target and does not lie in it
  /// already (a backend that did not use the allocator) into the target.
  /// INVALID_ARG when one is larger than its region.
  runtime::status deliver(const runtime::inference_response& r) const;

 private:
  std::map<std::string, runtime::buffer> targets_;  // read-only once made
};

} // namespace conch::transports::http::kserve
