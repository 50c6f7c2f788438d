// _conch.ServerOptions: the C++ server_options, filled in by conch.Options.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "conch/actors/server_options.hpp"
#include "conch/python/bindings.hpp"
#include "conch/python/status.hpp"

namespace conch::python {

namespace py = pybind11;
using actors::server_options;

void bind_options(py::module_& m) {
  py::class_<server_options>(m, "ServerOptions",
                             "The options of a Conch server; conch.Options fills them in.")
    .def(py::init<>())
    .def_readwrite("model_repository", &server_options::model_repository)
    .def_readwrite("server_id", &server_options::server_id)
    .def_property(
      "model_control_mode",
      [](const server_options& o) { return static_cast<int>(o.model_control_mode); },
      [](server_options& o, int mode) {
        if (mode < 0 || mode > 2)
          throw py::value_error("model_control_mode must be NONE, POLL or EXPLICIT");
        o.model_control_mode = static_cast<actors::control_mode>(mode);
      })
    .def_readwrite("startup_models", &server_options::startup_models)
    .def_readwrite("strict_model_config", &server_options::strict_model_config)
    .def_readwrite("backend_directory", &server_options::backend_directory)
    .def_readwrite("exit_on_error", &server_options::exit_on_error)
    .def_readwrite("strict_readiness", &server_options::strict_readiness)
    .def_readwrite("exit_timeout", &server_options::exit_timeout)
    .def_readwrite("response_cache_byte_size", &server_options::response_cache_byte_size)
    .def_readwrite("repository_poll_secs", &server_options::repository_poll_secs)
    .def_readwrite("adapter_count", &server_options::adapter_count)
    .def_readwrite("restart_budget", &server_options::restart_budget)
    .def_readwrite("direct_lane", &server_options::direct_lane)
    .def_readwrite("max_inflight", &server_options::max_inflight)
    .def_readwrite("gpu_count", &server_options::gpu_count)
    .def_readwrite("pinned_memory_pool_byte_size", &server_options::pinned_memory_pool_byte_size)
    .def_readwrite("cuda_memory_pool_byte_size", &server_options::cuda_memory_pool_byte_size)
    .def_readwrite("metrics", &server_options::metrics)
    .def_readwrite("gpu_metrics", &server_options::gpu_metrics)
    .def_readwrite("cpu_metrics", &server_options::cpu_metrics)
    .def_readwrite("metrics_interval_ms", &server_options::metrics_interval_ms)
    .def_readwrite("metrics_configuration", &server_options::metrics_configuration)
    .def(
      "set_trace_config",
      [](server_options& o, const std::vector<std::string>& args) {
        // Starts from Triton's defaults, as `--trace-config` does.
        runtime::tracing::trace_settings settings;
        throw_if_error(runtime::tracing::parse_trace_config(args, settings));
        o.trace = std::move(settings);
      },
      py::arg("args"), "Sets the trace settings from `--trace-config` arguments.");
}

} // namespace conch::python
