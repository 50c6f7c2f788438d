#pragma once

#include <cstddef>

#include "conch/runtime/data_type.hpp"

namespace conch::runtime::backends::add_sub {

/// True for the data types add_sub computes with: the integers, FP32 and FP64.
bool is_supported_type(data_type type) noexcept;

/// Writes a[i] + b[i] to sum and a[i] - b[i] to difference for `count`
/// elements of `type`; either destination may be null to skip it. The
/// buffers need no alignment. Requires is_supported_type(type).
void add_sub_elements(data_type type, const std::byte* a, const std::byte* b, std::byte* sum,
                      std::byte* difference, size_t count) noexcept;

} // namespace conch::runtime::backends::add_sub
