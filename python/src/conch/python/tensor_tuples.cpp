#include "conch/python/tensor_tuples.hpp"

#include <string>

#include <pybind11/stl.h>

#include "conch/python/buffers.hpp"
#include "conch/python/status.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

[[noreturn]] void invalid(const std::string& message) {
  raise(runtime::errc::invalid_argument, message);
}

runtime::data_type tensor_type(py::handle code, const std::string& name) {
  int value = code.cast<int>();
  if (value <= 0 || value > static_cast<int>(runtime::data_type::bf16))
    invalid("tensor '" + name + "' has an invalid data type " + std::to_string(value));
  return static_cast<runtime::data_type>(value);
}

} // namespace

py::list tensor_tuples(const std::vector<runtime::tensor>& tensors) {
  py::list out(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    out[i] = py::make_tuple(t.name, static_cast<int>(t.type), py::cast(t.shape),
                            reinterpret_cast<uintptr_t>(t.data.data()),
                            static_cast<int>(t.data.type()), t.data.device_id(), t.data.size(),
                            t.data);
  }
  return out;
}

runtime::tensor tensor_from_tuple(py::handle item) {
  if (!PyTuple_Check(item.ptr()))
    invalid("a tensor must be given as a tuple");
  auto t = py::reinterpret_borrow<py::tuple>(item);
  if (t.size() != 4 && t.size() != 8)
    invalid("a tensor tuple must have 4 or 8 items");
  runtime::tensor out;
  out.name = t[0].cast<std::string>();
  out.type = tensor_type(t[1], out.name);
  out.shape = t[2].cast<runtime::shape_type>();
  if (t.size() == 4) {
    out.data = buffer_from_object(t[3]);
    return out;
  }
  int memory = t[5].cast<int>();
  if (memory < 0 || memory > static_cast<int>(runtime::memory_type::gpu))
    invalid("tensor '" + out.name + "' has an invalid memory type " + std::to_string(memory));
  out.data = buffer_from_address(t[3].cast<uintptr_t>(), t[4].cast<size_t>(),
                                 static_cast<runtime::memory_type>(memory), t[6].cast<int64_t>(),
                                 t[7]);
  return out;
}

} // namespace conch::python
