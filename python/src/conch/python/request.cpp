#include "conch/python/request.hpp"

#include <variant>

#include <pybind11/stl.h>

#include "conch/python/status.hpp"
#include "conch/python/tensor_tuples.hpp"
#include "conch/runtime/response_allocator.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::errc;

namespace {

[[noreturn]] void invalid(const std::string& message) { raise(errc::invalid_argument, message); }

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

runtime::parameter_list parameters_from_dict(const py::dict& parameters) {
  runtime::parameter_list out;
  out.reserve(parameters.size());
  for (auto [key, value] : parameters) {
    if (!PyUnicode_Check(key.ptr()))
      invalid("Request Parameter names must be str");
    out.push_back({key.cast<std::string>(), parameter_value(value)});
  }
  return out;
}

py::dict parameters_to_dict(const runtime::parameter_list& parameters) {
  py::dict out;
  for (const auto& p : parameters)
    std::visit([&](const auto& v) { out[py::str(p.name)] = py::cast(v); }, p.value);
  return out;
}

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
  r.trace = f.trace;
  r.requested_outputs = f.outputs;
  r.inputs.reserve(f.inputs.size());
  for (py::handle item : f.inputs)
    r.inputs.push_back(tensor_from_tuple(item));
  r.parameters = parameters_from_dict(f.parameters);
  // Outputs always get memory of their own: a backend that could pass an
  // input through (identity) must not hand Python a view of the caller's
  // input array, which the caller may overwrite for the next request.
  r.allocator = runtime::cpu_allocator::instance();
  return r;
}

} // namespace conch::python
