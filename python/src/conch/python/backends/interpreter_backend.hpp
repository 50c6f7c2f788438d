#pragma once

// The backends whose models run in this process's Python interpreter:
// `python` (Triton python-backend models) and `onnxruntime` (through the
// onnxruntime package). Their logic lives in the pure-Python package
// conch._backend; this side loads it, calls it on the instance threads with
// the GIL held, and makes sure every request is answered.

#include <string>

#include "conch/runtime/backends/registry.hpp"

namespace conch::python::backends {

/// The registry entry of backend `name`, served by conch._backend.
/// `model_file`, when given, is the model file every model of the backend
/// runs (a python-based backend's `<backend directory>/<name>/model.py`)
/// instead of the model.py of each model's version directory.
runtime::backends::backend_entry interpreter_backend(std::string name,
                                                     std::string model_file = {});

/// Adds the `python` and `onnxruntime` backends to the process-wide registry.
/// Called when the extension is imported.
void register_interpreter_backends();

/// Model executions abandoned past an exit timeout and interrupted
/// (ExecutionAbandoned raised in their threads) that have not returned yet.
/// Thread-safe.
int interrupted_executions_running() noexcept;

} // namespace conch::python::backends
