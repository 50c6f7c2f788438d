#pragma once

// DLPack import and export. The structures below follow the DLPack ABI
// (dlpack.h, versions 0.8 and 1.0); they are declared here because Debian
// ships no dlpack header.

#include <cstdint>

#include <pybind11/pybind11.h>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/data_type.hpp"
#include "conch/runtime/tensor.hpp"

namespace conch::python {

/// DLPack's device types used by Conch.
enum dl_device_type : int32_t {
  dl_cpu = 1,
  dl_cuda = 2,
  dl_cuda_host = 3,
  dl_cuda_managed = 13,
};

/// A tensor taken from a DLPack capsule: its type, shape and bytes. The
/// buffer keeps the producer's tensor alive and releases it (with the GIL)
/// when the last copy goes.
struct imported_tensor {
  runtime::data_type type = runtime::data_type::invalid;
  runtime::shape_type shape;
  runtime::buffer data;
};

/// Consumes a "dltensor" or "dltensor_versioned" capsule. Raises
/// InvalidArgumentError for a strided (non C-contiguous) tensor, a type Conch
/// has no data type for, or a capsule that was consumed already; raises
/// UnsupportedError for a device other than CPU, pinned host or CUDA.
/// Requires the GIL.
imported_tensor import_dlpack(pybind11::handle capsule);

/// What an export describes: bytes, their type and shape, and the Python
/// object that keeps the bytes alive.
struct export_request {
  std::byte* data = nullptr;
  runtime::memory_type memory = runtime::memory_type::cpu;
  int64_t device_id = 0;
  runtime::data_type type = runtime::data_type::invalid;
  runtime::shape_type shape;
  pybind11::object keep_alive;
  bool versioned = false;
};

/// Exports a tensor as a DLPack capsule ("dltensor_versioned" when
/// `versioned`, else "dltensor"). The capsule's manager holds one reference
/// to `keep_alive` until the consumer calls the deleter (or the capsule is
/// dropped unconsumed) and copies the shape, so later changes to the
/// exporter's shape do not reach it. Raises InvalidArgumentError for BYTES
/// and INVALID. Requires the GIL.
pybind11::capsule export_dlpack(export_request request);

} // namespace conch::python
