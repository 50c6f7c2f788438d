// _conch.Server: a running Conch server, owned by conch.Server.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "conch/python/bindings.hpp"
#include "conch/python/py_trace.hpp"
#include "conch/python/server.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

submitted_request infer(py_server& s, std::string model_name, int64_t model_version,
                        py::list inputs, py::dict parameters, py::object request_id,
                        uint32_t flags, py::object correlation_id, uint64_t priority,
                        uint64_t timeout_us, py::object on_response, python_trace* trace,
                        std::vector<std::string> outputs) {
  request_fields f;
  f.model_name = std::move(model_name);
  f.model_version = model_version;
  f.inputs = std::move(inputs);
  f.parameters = std::move(parameters);
  f.request_id = std::move(request_id);
  f.flags = flags;
  f.correlation_id = std::move(correlation_id);
  f.priority = priority;
  f.timeout_us = timeout_us;
  // The request takes the trace over, as Triton's does.
  if (trace != nullptr)
    f.trace = std::move(trace->trace);
  f.outputs = std::move(outputs);
  return s.infer(f, std::move(on_response));
}

} // namespace

void bind_server(py::module_& m) {
  py::class_<py_server>(m, "Server", "A running Conch server; conch.Server owns one.")
    .def_static("start", &py_server::start, py::arg("options"),
                "Starts a server and loads its models (GIL released).")
    .def("stop", &py_server::stop, "Stops the server (GIL released).")
    .def("live", &py_server::live)
    .def("ready", &py_server::ready)
    .def("metadata", &py_server::metadata)
    .def("model_ready", &py_server::model_ready, py::arg("name"), py::arg("version") = -1)
    .def("model_metadata", &py_server::model_metadata, py::arg("name"), py::arg("version") = -1)
    .def("model_config", &py_server::model_config, py::arg("name"), py::arg("version") = -1,
         "The model configuration as JSON.")
    .def("model_statistics", &py_server::model_statistics, py::arg("name") = "",
         py::arg("version") = -1, "The statistics extension's JSON body.")
    .def("repository_index", &py_server::repository_index, py::arg("ready_only") = false,
         "(name, version, state, reason) tuples; version is '' and state None for "
         "a model never loaded.")
    .def("metrics", &py_server::metrics, "The Prometheus text exposition.")
    .def("trace_settings", &py_server::trace_settings, py::arg("model_name") = "")
    .def("update_trace_settings", &py_server::update_trace_settings, py::arg("model_name"),
         py::arg("settings"))
    .def("flush_traces", &py_server::flush_traces)
    .def("load", &py_server::load, py::arg("name"), py::arg("config") = py::none(),
         py::arg("files") = std::vector<std::pair<std::string, py::bytes>>{})
    .def("unload", &py_server::unload, py::arg("name"), py::arg("unload_dependents") = false)
    .def("poll_repository", &py_server::poll_repository)
    .def("register_model_repository", &py_server::register_model_repository, py::arg("path"),
         py::arg("name_mapping") = std::map<std::string, std::string>{},
         "Adds a model repository; name_mapping maps a model directory to the name "
         "it is known by (EXPLICIT mode; GIL released).")
    .def("unregister_model_repository", &py_server::unregister_model_repository,
         py::arg("path"), "Removes a registered model repository (EXPLICIT mode).")
    .def("infer", &infer, py::arg("model_name"), py::arg("model_version"), py::arg("inputs"),
         py::arg("parameters"), py::arg("request_id"), py::arg("flags"),
         py::arg("correlation_id"), py::arg("priority"), py::arg("timeout"),
         py::arg("on_response"), py::arg("trace") = nullptr,
         py::arg("outputs") = std::vector<std::string>{},
         "Submits a request and returns its RequestHandle; never blocks. A _conch.Trace "
         "given as `trace` goes with the request (and is used up).");
}

} // namespace conch::python
