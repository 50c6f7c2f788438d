#pragma once

// Tensors as the tuples the pure-Python layer exchanges with the extension.
// Python builds conch.Tensor objects from them (conch/_response.py) and
// produces them with conch._tensor.native_input.

#include <vector>

#include <pybind11/pybind11.h>

#include "conch/runtime/tensor.hpp"

namespace conch::python {

/// One tuple per tensor: (name, data_type, shape, data_ptr, memory_type,
/// memory_type_id, size, Buffer). The Buffer shares the tensor's bytes.
/// Requires the GIL.
pybind11::list tensor_tuples(const std::vector<runtime::tensor>& tensors);

/// A tensor from (name, data_type, shape, buffer-protocol object) or (name,
/// data_type, shape, data_ptr, size, memory_type, memory_type_id, owner),
/// viewing the object's bytes without copying and keeping it alive. Raises
/// InvalidArgumentError for a malformed tuple. Requires the GIL.
runtime::tensor tensor_from_tuple(pybind11::handle item);

} // namespace conch::python
