#include "conch/python/request.hpp"

#include <pybind11/stl.h>

#include "conch/python/buffers.hpp"
#include "conch/python/status.hpp"
#include "conch/runtime/response_allocator.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::errc;

namespace {

[[noreturn]] void invalid(const std::string& message) { raise(errc::invalid_argument, message); }

runtime::data_type input_type(py::handle code, const std::string& name) {
  int value = code.cast<int>();
  if (value <= 0 || value > static_cast<int>(runtime::data_type::bf16))
    invalid("input '" + name + "' has an invalid data type " + std::to_string(value));
  return static_cast<runtime::data_type>(value);
}

runtime::tensor make_input(py::handle item) {
  auto t = py::reinterpret_borrow<py::tuple>(item);
  if (t.size() != 4 && t.size() != 8)
    invalid("an input must be a tuple of 4 or 8 items");
  runtime::tensor out;
  out.name = t[0].cast<std::string>();
  out.type = input_type(t[1], out.name);
  out.shape = t[2].cast<runtime::shape_type>();
  if (t.size() == 4) {
    out.data = buffer_from_object(t[3]);
    return out;
  }
  int memory = t[5].cast<int>();
  if (memory < 0 || memory > static_cast<int>(runtime::memory_type::gpu))
    invalid("input '" + out.name + "' has an invalid memory type " + std::to_string(memory));
  out.data = buffer_from_address(t[3].cast<uintptr_t>(), t[4].cast<size_t>(),
                                 static_cast<runtime::memory_type>(memory), t[6].cast<int64_t>(),
                                 t[7]);
  return out;
}

[[noreturn]] void unsupported_parameter(py::handle value) {
  invalid("Unsupported Value. Can't convert " + py::str(py::type::handle_of(value)).cast<std::string>() +
          " to Request Parameter");
}

runtime::parameter::value_type parameter_value(py::handle value) {
  PyObject* v = value.ptr();
  if (PyBool_Check(v))
    return v == Py_True;
  if (PyLong_CheckExact(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0)
      invalid("Request Parameter value " + py::str(value).cast<std::string>() +
              " does not fit in a signed 64-bit integer");
    return static_cast<int64_t>(x);
  }
  if (PyFloat_CheckExact(v))
    return PyFloat_AS_DOUBLE(v);
  if (PyUnicode_CheckExact(v))
    return value.cast<std::string>();
  unsupported_parameter(value);
}

void set_correlation_id(runtime::inference_request& r, py::handle id) {
  if (id.is_none())
    return;
  if (PyUnicode_Check(id.ptr())) {
    r.correlation_id = id.cast<std::string>();
    return;
  }
  if (!PyLong_Check(id.ptr()) || PyBool_Check(id.ptr()))
    invalid("correlation_id must be an int or a str, not " +
            py::str(py::type::handle_of(id)).cast<std::string>());
  unsigned long long x = PyLong_AsUnsignedLongLong(id.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    invalid("correlation_id must fit in an unsigned 64-bit integer");
  }
  r.correlation_id = static_cast<uint64_t>(x);
}

} // namespace

runtime::inference_request build_request(const request_fields& f) {
  runtime::inference_request r;
  r.model_name = f.model_name;
  r.model_version = f.model_version;
  if (!f.request_id.is_none())
    r.id = f.request_id.cast<std::string>();
  r.flags = f.flags;
  set_correlation_id(r, f.correlation_id);
  r.priority = f.priority;
  r.timeout_us = f.timeout_us;
  r.inputs.reserve(f.inputs.size());
  for (py::handle item : f.inputs)
    r.inputs.push_back(make_input(item));
  for (auto [key, value] : f.parameters) {
    if (!PyUnicode_Check(key.ptr()))
      invalid("Request Parameter names must be str");
    r.parameters.push_back({key.cast<std::string>(), parameter_value(value)});
  }
  // Outputs always get memory of their own: a backend that could pass an
  // input through (identity) must not hand Python a view of the caller's
  // input array, which the caller may overwrite for the next request.
  r.allocator = runtime::cpu_allocator::instance();
  return r;
}

} // namespace conch::python
