// _conch: the compiled half of the conch package.

#include <pybind11/pybind11.h>

#include "conch/python/backends/backend_request.hpp"
#include "conch/python/backends/bls_gateway.hpp"
#include "conch/python/backends/interpreter_backend.hpp"
#include "conch/python/bindings.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/status.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_conch, m) {
  m.doc() = "Conch's compiled core; use the conch package instead.";
  conch::python::init_gil_rules();
  conch::python::init_errors();
  conch::python::bind_options(m);
  conch::python::bind_tensor(m);
  conch::python::bind_request(m);
  conch::python::bind_server(m);
  conch::python::bind_frontends(m);
  conch::python::bind_metrics(m);
  conch::python::bind_trace(m);
  conch::python::bind_logging(m);
  conch::python::backends::bind_backend_request(m);
  conch::python::backends::bind_bls_gateway(m);
  conch::python::backends::register_interpreter_backends();
  m.def(
    "exception_for",
    [](int code, const std::string& message) {
      if (code <= 0 || code > static_cast<int>(conch::runtime::errc::unknown))
        throw py::value_error("no error code " + std::to_string(code));
      return conch::python::make_exception({static_cast<conch::runtime::errc>(code), message});
    },
    py::arg("code"), py::arg("message"),
    "The exception the extension raises for an error code (1 internal ... 8 unknown).");
  m.def("run_deferred", &conch::python::run_deferred,
        "Releases the Python objects Conch threads let go of since the last call.");
  m.def("deferred_calls_waiting", &conch::python::deferred_calls_waiting,
        "Releases (and other calls) that Conch threads without the GIL queued and no thread "
        "has run yet.");
  m.def("interrupted_executions", &conch::python::backends::interrupted_executions_running,
        "Model executions abandoned past an exit timeout whose Python code has not returned "
        "yet (ExecutionAbandoned was raised in their threads).");
}
