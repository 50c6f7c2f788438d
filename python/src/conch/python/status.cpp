#include "conch/python/status.hpp"

#include <array>

namespace conch::python {

namespace py = pybind11;
using runtime::errc;

namespace {

constexpr size_t code_count = static_cast<size_t>(errc::unknown) + 1;

// The class name in conch._errors for each code, indexed by the code.
constexpr std::array<const char*, code_count> class_names = {
  "UnknownError",         // ok: never raised; a placeholder
  "InternalError",        // internal
  "NotFoundError",        // not_found
  "InvalidArgumentError", // invalid_argument
  "UnavailableError",     // unavailable
  "UnsupportedError",     // unsupported
  "AlreadyExistsError",   // already_exists
  "CancelledError",       // cancelled
  "UnknownError",         // unknown
};

// Strong references, leaked on purpose: they must outlive every exception
// raised while the interpreter shuts down.
std::array<PyObject*, code_count> classes{};

PyObject* class_of(errc code) {
  auto i = static_cast<size_t>(code);
  return classes[i < code_count ? i : static_cast<size_t>(errc::unknown)];
}

} // namespace

void init_errors() {
  py::module_ errors = py::module_::import("conch._errors");
  for (size_t i = 0; i < code_count; ++i)
    classes[i] = py::object(errors.attr(class_names[i])).release().ptr();
}

py::object make_exception(const runtime::status& st) {
  return py::reinterpret_borrow<py::object>(class_of(st.code()))(st.message());
}

void throw_if_error(const runtime::status& st) {
  if (!st.is_ok())
    raise(st.code(), st.message());
}

void raise(errc code, const std::string& message) {
  PyErr_SetString(class_of(code), message.c_str());
  throw py::error_already_set();
}

} // namespace conch::python
