#pragma once

// The binding functions, one per concept; module.cpp calls each once.

#include <pybind11/pybind11.h>

namespace conch::python {

/// _conch.ServerOptions (bind_options.cpp).
void bind_options(pybind11::module_& m);

/// _conch.Buffer, DLPack import and export, BYTES (de)serialisation
/// (bind_tensor.cpp).
void bind_tensor(pybind11::module_& m);

/// _conch.Response and _conch.RequestHandle (bind_request.cpp).
void bind_request(pybind11::module_& m);

/// _conch.Server (bind_server.cpp).
void bind_server(pybind11::module_& m);

/// _conch.HttpFrontend and _conch.MetricsFrontend (bind_frontends.cpp).
void bind_frontends(pybind11::module_& m);

/// _conch.Trace (bind_trace.cpp).
void bind_trace(pybind11::module_& m);

/// _conch.MetricFamily and _conch.Metric (bind_metrics.cpp).
void bind_metrics(pybind11::module_& m);

/// _conch.configure_logging, set_log_callback, log_message, log_is_on and
/// log_settings (bind_logging.cpp).
void bind_logging(pybind11::module_& m);

} // namespace conch::python
