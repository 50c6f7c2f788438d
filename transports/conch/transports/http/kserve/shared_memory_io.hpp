#pragma once

#include <memory>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/kserve/codec/decoded_infer.hpp"
#include "conch/runtime/shm/region_registry.hpp"
#include "conch/runtime/shm/tensor_io.hpp"

namespace conch::transports::http::kserve {

/// Gives every shared-memory input of `decoded` its data (runtime::shm::resolve_input):
/// the bytes of its region, aliased, which keep the region mapped while the
/// request lives. Runs on the loop thread.
runtime::status resolve_shared_memory_inputs(const runtime::shm::region_registry& registry,
                                             codec::decoded_infer& decoded);

/// The regions of `decoded`'s shared-memory outputs, resolved now, which
/// also watch the regions of its shared-memory inputs; null when it has
/// neither. The errors of region_registry::resolve.
runtime::result<std::shared_ptr<runtime::shm::output_regions>>
resolve_shared_memory_outputs(const runtime::shm::region_registry& registry,
                              const codec::decoded_infer& decoded);

} // namespace conch::transports::http::kserve
