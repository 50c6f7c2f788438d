#pragma once

#include "conch/runtime/request_trace.hpp"

namespace conch::python {

/// What _conch.Trace holds (bind_trace.cpp): a trace made by Python code,
/// until a request takes it over.
struct python_trace {
  runtime::request_trace_ptr trace;
};

} // namespace conch::python
