#pragma once

// Turning Python objects into Conch buffers without copying their bytes.

#include <cstdint>

#include <pybind11/pybind11.h>

#include "conch/runtime/buffer.hpp"

namespace conch::python {

/// A host buffer that views the bytes of a C-contiguous buffer-protocol object
/// (a numpy array, bytes, a _conch.Buffer) and keeps the object alive. The
/// object must not be resized while the buffer lives. Raises
/// InvalidArgumentError ("Only contiguous memory is supported") otherwise.
/// Requires the GIL.
runtime::buffer buffer_from_object(pybind11::handle obj);

/// A buffer of `size` bytes at `address` in `memory` on `device_id`, kept alive
/// by `owner`. When `owner` is a _conch.Buffer that contains the range, the
/// result is a slice of it and holds no Python reference. Requires the GIL.
runtime::buffer buffer_from_address(uintptr_t address, size_t size, runtime::memory_type memory,
                                    int64_t device_id, pybind11::handle owner);

/// A buffer whose owner holds a reference to `obj` (released with the GIL,
/// see gil.hpp). Requires the GIL.
std::shared_ptr<const void> python_owner(pybind11::handle obj);

} // namespace conch::python
