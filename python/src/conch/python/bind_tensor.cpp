// _conch.Buffer (a Conch buffer seen from Python), DLPack in both directions,
// and BYTES (de)serialisation.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

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
    .def_buffer(&host_view);

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
