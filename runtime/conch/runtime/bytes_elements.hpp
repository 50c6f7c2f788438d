#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime {

/// Reading and writing BYTES tensor data: per element a little-endian uint32
/// length followed by that many bytes, no padding.

/// Counts the elements of serialised BYTES data; an error if an element runs
/// past the end of the data.
result<size_t> count_bytes_elements(const std::byte* data, size_t size);

/// Splits serialised BYTES data into views of its elements. The views point
/// into `data`.
result<std::vector<std::string_view>> split_bytes_elements(const std::byte* data, size_t size);

/// Serialises elements into a new host buffer.
buffer serialize_bytes_elements(const std::vector<std::string_view>& elements);

/// Appends one element (length prefix and bytes) to `out`.
void append_bytes_element(std::string& out, std::string_view element);

} // namespace conch::runtime
