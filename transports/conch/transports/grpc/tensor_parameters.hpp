#pragma once

#include <cstdint>
#include <optional>

#include "conch/runtime/result.hpp"
#include "conch/transports/grpc/request_parameters.hpp"
#include "conch/runtime/shm/region_ref.hpp"

namespace conch::transports::grpc {

/// The shared-memory place an input's or output's parameters name (spec
/// §2.3): `shared_memory_region` (string_param), `shared_memory_byte_size`
/// (int64_param, required with a region) and `shared_memory_offset`
/// (int64_param, 0 by default); nullopt when they name no region.
/// INVALID_ARG naming the parameter for a value of another type, a missing
/// byte size or a negative value.
runtime::result<std::optional<runtime::shm::region_ref>> shared_memory_parameters(
  const parameter_map& params);

/// The number of classes a requested output's `classification` parameter
/// (int64_param > 0) asks for; 0 when absent. INVALID_ARG for a value of
/// another type or one that is not positive.
runtime::result<uint64_t> classification_parameter(const parameter_map& params);

} // namespace conch::transports::grpc
