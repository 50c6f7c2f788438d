#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/runtime/tensor.hpp"

namespace conch::transports::classification {

/// The most elements a classified output (per batch entry) may have.
inline constexpr int64_t max_classification_elements = 1'000'000;

/// The classification extension (spec §1.10): replaces output `t` by a BYTES
/// tensor of its `k` highest values, as "<value>:<index>" or
/// "<value>:<index>:<label>" strings sorted by value, highest first (ties keep
/// index order; NaN ranks last). Values print as std::to_string does
/// ("3.300000" for floating point, plain integers). When `batched`, the
/// first dimension is the batch and each entry is ranked on its own: the shape
/// is [batch, min(k, n)], else [min(k, n)], n being the elements per entry.
/// `labels[i]` labels class i when present and non-empty. Integer, FP32 and
/// FP64 outputs only; others are invalid_argument "class result not available
/// for output due to unsupported type '<TYPE>'". Requires host data.
runtime::result<runtime::tensor> classify(const runtime::tensor& t, uint64_t k, bool batched,
                                          const std::vector<std::string>& labels);

} // namespace conch::transports::classification
