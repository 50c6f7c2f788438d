// _conch.Buffer (a Conch buffer seen from Python), allocating and copying
// bytes in host, pinned and GPU memory, DLPack in both directions, and BYTES
// (de)serialisation.

#include <cstring>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "conch/actors/server/device_memory_setup.hpp"
#include "conch/runtime/device_memory.hpp"

#include "conch/python/bindings.hpp"
#include "conch/python/buffers.hpp"
#include "conch/python/bytes_codec.hpp"
#include "conch/python/dlpack.hpp"
#include "conch/python/status.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::buffer;
using runtime::errc;

namespace {

runtime::data_type checked_type(int code) {
  if (code <= 0 || code > static_cast<int>(runtime::data_type::bf16))
    raise(errc::invalid_argument, "invalid data type " + std::to_string(code));
  return static_cast<runtime::data_type>(code);
}

runtime::memory_type checked_memory(int code) {
  if (code < 0 || code > static_cast<int>(runtime::memory_type::gpu))
    raise(errc::invalid_argument, "invalid memory type " + std::to_string(code));
  return static_cast<runtime::memory_type>(code);
}

py::buffer_info host_view(const buffer& b) {
  if (!b.host_accessible())
    raise(errc::unsupported, "a GPU buffer cannot be viewed from the host");
  return py::buffer_info(b.data(), 1, py::format_descriptor<uint8_t>::format(), 1,
                         {static_cast<py::ssize_t>(b.size())}, {1});
}

// The process's CUDA memory provider, installed on first use; UNSUPPORTED
// where no GPU can be used (no CUDA in this build, no driver, no device).
std::shared_ptr<runtime::device_memory> gpus(const char* what) {
  {
    py::gil_scoped_release unlocked;  // CUDA's start-up may take seconds
    actors::install_device_memory();
  }
  auto provider = runtime::get_device_memory();
  if (!provider || provider->device_count() == 0)
    raise(errc::unsupported, std::string{what} + " needs a CUDA device, and none is available");
  return provider;
}

buffer unwrap(runtime::result<buffer> r) {
  if (!r)
    throw_if_error(r.error());
  return std::move(*r);
}

// `size` bytes in `memory` on `device_id`. The GIL is let go while CUDA
// allocates (and starts, on first use).
buffer allocate(int memory, int64_t device_id, size_t size) {
  auto type = checked_memory(memory);
  if (type == runtime::memory_type::cpu)
    return buffer::allocate(size);
  auto provider = gpus(type == runtime::memory_type::gpu ? "GPU memory" : "pinned host memory");
  runtime::result<buffer> out = runtime::unavailable("not allocated");
  {
    py::gil_scoped_release unlocked;
    out = type == runtime::memory_type::gpu ? provider->allocate_device(size, device_id)
                                             : provider->allocate_pinned(size);
  }
  return unwrap(std::move(out));
}

// Copies `size` bytes between two places, either of them host or GPU
// memory; returns once the copy is done. The caller keeps both alive.
void copy_bytes(uintptr_t to, int to_memory, int64_t to_device, uintptr_t from, int from_memory,
                int64_t from_device, size_t size) {
  auto to_type = checked_memory(to_memory);
  auto from_type = checked_memory(from_memory);
  auto* to_data = reinterpret_cast<std::byte*>(to);
  auto* from_data = reinterpret_cast<std::byte*>(from);
  if (size == 0)
    return;
  if (to_type != runtime::memory_type::gpu && from_type != runtime::memory_type::gpu) {
    py::gil_scoped_release unlocked;
    std::memcpy(to_data, from_data, size);
    return;
  }
  auto provider = gpus("copying to or from GPU memory");
  buffer target{nullptr, to_data, size, to_type, to_device};
  buffer source{nullptr, from_data, size, from_type, from_device};
  runtime::status st;
  {
    py::gil_scoped_release unlocked;
    st = provider->copy(target, source);
  }
  throw_if_error(st);
}

py::tuple import_tensor(py::handle capsule) {
  auto t = import_dlpack(capsule);
  return py::make_tuple(static_cast<int>(t.type), py::cast(t.shape), std::move(t.data));
}

py::capsule export_tensor(uintptr_t address, int memory, int64_t device_id, int type,
                          runtime::shape_type shape, py::object keep_alive, bool versioned) {
  export_request r;
  r.data = reinterpret_cast<std::byte*>(address);
  r.memory = checked_memory(memory);
  r.device_id = device_id;
  r.type = checked_type(type);
  r.shape = std::move(shape);
  r.keep_alive = std::move(keep_alive);
  r.versioned = versioned;
  return export_dlpack(std::move(r));
}

py::list deserialize(py::handle obj) {
  if (py::isinstance<buffer>(obj)) {
    const auto& b = obj.cast<const buffer&>();
    if (!b.host_accessible())
      raise(errc::unsupported, "BYTES data in GPU memory must be copied to the host first");
    return deserialize_bytes(b.data(), b.size());
  }
  auto b = buffer_from_object(obj);
  return deserialize_bytes(b.data(), b.size());
}

} // namespace

void bind_tensor(py::module_& m) {
  py::class_<buffer>(m, "Buffer", py::buffer_protocol(),
                     "Bytes owned by Conch (an output, serialised BYTES, an imported DLPack "
                     "tensor). Host buffers support the buffer protocol.")
    .def_property_readonly("data_ptr",
                           [](const buffer& b) { return reinterpret_cast<uintptr_t>(b.data()); })
    .def_property_readonly("size", &buffer::size)
    .def_property_readonly("memory_type", [](const buffer& b) { return static_cast<int>(b.type()); })
    .def_property_readonly("memory_type_id", &buffer::device_id)
    .def_static(
      "copy_of", [](py::handle obj) { auto b = buffer_from_object(obj); return buffer::copy_of(b.data(), b.size()); },
      "A new host buffer holding a copy of a buffer-protocol object's bytes.")
    .def_static("allocate", &allocate, py::arg("memory_type"), py::arg("memory_type_id"),
                py::arg("size"),
                "A new buffer of `size` bytes in host (0), pinned host (1) or GPU (2) memory; "
                "UnsupportedError where the memory needs a CUDA device and none is available.")
    .def_buffer(&host_view);

  m.def(
    "cuda_device_count",
    [] {
      py::gil_scoped_release unlocked;
      actors::install_device_memory();
      auto provider = runtime::get_device_memory();
      return provider ? provider->device_count() : 0;
    },
    "The number of CUDA devices Conch can use (0 without CUDA, a driver or a device).");
  m.def(
    "memory_pools",
    [] {
      auto provider = runtime::get_device_memory();
      py::dict out;
      runtime::pool_usage pinned = provider ? provider->pinned_pool() : runtime::pool_usage{};
      out["pinned"] = py::make_tuple(pinned.total_bytes, pinned.used_bytes);
      py::dict devices;
      for (int device = 0, n = provider ? provider->device_count() : 0; device < n; ++device) {
        auto pool = provider->device_pool(device);
        devices[py::int_(device)] = py::make_tuple(pool.total_bytes, pool.used_bytes);
      }
      out["gpu"] = devices;
      return out;
    },
    "The memory pools: {'pinned': (total, used), 'gpu': {device: (total, used)}}, in bytes; "
    "zeros where there is no pool.");
  m.def(
    "cuda_synchronize",
    [](int64_t device_id) {
      auto provider = gpus("waiting for a GPU");
      runtime::status st;
      {
        py::gil_scoped_release unlocked;
        st = provider->synchronize(device_id);
      }
      throw_if_error(st);
    },
    py::arg("device_id"),
    "Waits for the work queued on the device's legacy default stream.");
  m.def("copy_bytes", &copy_bytes, py::arg("to"), py::arg("to_memory_type"),
        py::arg("to_memory_type_id"), py::arg("from_"), py::arg("from_memory_type"),
        py::arg("from_memory_type_id"), py::arg("size"),
        "Copies `size` bytes between host and GPU memory either way; returns when done.");

  m.def("from_dlpack", &import_tensor, py::arg("capsule"),
        "Consumes a DLPack capsule: (data_type, shape, Buffer).");
  m.def("to_dlpack", &export_tensor, py::arg("data_ptr"), py::arg("memory_type"),
        py::arg("memory_type_id"), py::arg("data_type"), py::arg("shape"), py::arg("keep_alive"),
        py::arg("versioned") = false,
        "Exports bytes as a DLPack capsule that holds a reference to keep_alive.");
  m.def(
    "serialize_bytes",
    [](py::handle items) {
      auto [data, count] = serialize_bytes(items);
      return py::make_tuple(std::move(data), count);
    },
    py::arg("items"), "Serialises an iterable as BYTES elements: (Buffer, element count).");
  m.def("deserialize_bytes", &deserialize, py::arg("data"),
        "Splits serialised BYTES data into a list of bytes.");
}

} // namespace conch::python
