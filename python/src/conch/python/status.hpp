#pragma once

// The one place that maps Conch status codes to Python exceptions. The
// exception classes are defined in Python (conch/_errors.py) and looked up
// once, when the extension is imported.

#include <string>

#include <pybind11/pybind11.h>

#include "conch/runtime/status.hpp"

namespace conch::python {

/// Looks up the exception classes of conch._errors. Requires the GIL; called
/// once at import.
void init_errors();

/// The Python exception for an error status: an instance of the conch._errors
/// class of its code, with the message as its only argument. Requires the GIL.
pybind11::object make_exception(const runtime::status& st);

/// Raises the Python exception for `st` (as pybind11::error_already_set); does
/// nothing when `st` is ok. Requires the GIL.
void throw_if_error(const runtime::status& st);

/// Raises the exception of `code` with `message`. Requires the GIL.
[[noreturn]] void raise(runtime::errc code, const std::string& message);

} // namespace conch::python
