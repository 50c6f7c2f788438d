#include "conch/python/bytes_codec.hpp"

#include <string>

#include "conch/python/status.hpp"
#include "conch/runtime/bytes_elements.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

void append_item(std::string& out, py::handle item) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_Check(item.ptr())) {
    PyBytes_AsStringAndSize(item.ptr(), &data, &size);
  } else if (PyUnicode_Check(item.ptr())) {
    const char* utf8 = PyUnicode_AsUTF8AndSize(item.ptr(), &size);
    if (utf8 == nullptr)
      throw py::error_already_set();
    runtime::append_bytes_element(out, {utf8, static_cast<size_t>(size)});
    return;
  } else if (PyByteArray_Check(item.ptr())) {
    data = PyByteArray_AsString(item.ptr());
    size = PyByteArray_Size(item.ptr());
  } else {
    append_item(out, py::str(item));
    return;
  }
  runtime::append_bytes_element(out, {data, static_cast<size_t>(size)});
}

} // namespace

std::pair<runtime::buffer, size_t> serialize_bytes(py::handle items) {
  auto data = std::make_shared<std::string>();
  size_t count = 0;
  for (py::handle item : py::iter(items)) {
    append_item(*data, item);
    ++count;
  }
  auto* bytes = reinterpret_cast<std::byte*>(data->data());
  auto size = data->size();
  return {runtime::buffer{std::move(data), bytes, size}, count};
}

py::list deserialize_bytes(const std::byte* data, size_t size) {
  auto elements = runtime::split_bytes_elements(data, size);
  if (!elements)
    throw_if_error(elements.error());
  py::list out(elements->size());
  for (size_t i = 0; i < elements->size(); ++i) {
    const auto& e = (*elements)[i];
    out[i] = py::bytes(e.data(), e.size());
  }
  return out;
}

} // namespace conch::python
