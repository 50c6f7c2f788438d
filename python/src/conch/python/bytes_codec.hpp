#pragma once

// BYTES tensors between Python and Conch's serialised form (per element a
// little-endian uint32 length, then the bytes).

#include <pybind11/pybind11.h>

#include "conch/runtime/buffer.hpp"

namespace conch::python {

/// Serialises every item of `items` as one BYTES element: bytes-like objects
/// as they are, str as UTF-8, anything else as str(item) in UTF-8. Returns the
/// data and the element count. Requires the GIL.
std::pair<runtime::buffer, size_t> serialize_bytes(pybind11::handle items);

/// Splits serialised BYTES data into a list of Python bytes objects. Raises
/// InvalidArgumentError when an element runs past the end. Requires the GIL.
pybind11::list deserialize_bytes(const std::byte* data, size_t size);

} // namespace conch::python
