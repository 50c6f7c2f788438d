#include "conch/python/buffers.hpp"

#include <memory>

#include "conch/python/gil.hpp"
#include "conch/python/status.hpp"

namespace conch::python {

namespace py = pybind11;

std::shared_ptr<const void> python_owner(py::handle obj) {
  return std::make_shared<const py_ref>(py_ref::borrow(obj.ptr()));
}

runtime::buffer buffer_from_object(py::handle obj) {
  Py_buffer view;
  if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    raise(runtime::errc::invalid_argument, "Only contiguous memory is supported");
  }
  auto* data = static_cast<std::byte*>(view.buf);
  auto size = static_cast<size_t>(view.len);
  // The object keeps its bytes while it lives (numpy arrays cannot be resized
  // while referenced), so the view itself need not outlive this call.
  PyBuffer_Release(&view);
  return runtime::buffer{python_owner(obj), data, size};
}

runtime::buffer buffer_from_address(uintptr_t address, size_t size, runtime::memory_type memory,
                                    int64_t device_id, py::handle owner) {
  auto* data = reinterpret_cast<std::byte*>(address);
  if (py::isinstance<runtime::buffer>(owner)) {
    const auto& b = owner.cast<const runtime::buffer&>();
    if (b.type() == memory && data >= b.data() && size <= b.size() &&
        static_cast<size_t>(data - b.data()) <= b.size() - size)
      return b.slice(static_cast<size_t>(data - b.data()), size);
  }
  return runtime::buffer{python_owner(owner), data, size, memory, device_id};
}

} // namespace conch::python
