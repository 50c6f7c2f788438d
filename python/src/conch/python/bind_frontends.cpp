// _conch.HttpFrontend, _conch.GrpcFrontend and _conch.MetricsFrontend: the network frontends, owned
// by conch.frontend's classes.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "conch/python/bindings.hpp"
#include "conch/actors/grpc_frontend.hpp"
#include "conch/actors/http_frontend.hpp"
#include "conch/actors/metrics_frontend.hpp"
#include "conch/python/py_frontend.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

using py_http_frontend = py_frontend<actors::http_frontend, actors::http_options>;
using py_grpc_frontend = py_frontend<actors::grpc_frontend, actors::grpc_options>;
using py_metrics_frontend = py_frontend<actors::metrics_frontend, actors::metrics_options>;

/// The connection policy from its Python fields (seconds for timeouts);
/// fields left out keep their defaults.
transports::http::connection_policy policy_from(const py::dict& fields) {
  transports::http::connection_policy p;
  size_t taken = 0;
  auto seconds = [&](const char* name, std::chrono::milliseconds& field) {
    if (!fields.contains(name))
      return;
    ++taken;
    auto s = fields[name].cast<double>();
    if (!(s >= 0) || s > 1e9)
      throw py::value_error(std::string{name} + " must be between 0 and 1e9 seconds");
    auto ms = static_cast<int64_t>(s * 1000 + 0.5);
    if (s > 0 && ms == 0)
      ms = 1;  // a positive timeout never rounds to "disabled"
    field = std::chrono::milliseconds{ms};
  };
  auto count = [&](const char* name, size_t& field) {
    if (!fields.contains(name))
      return;
    ++taken;
    field = fields[name].cast<size_t>();
  };
  seconds("header_timeout", p.header_timeout);
  seconds("body_timeout", p.body_timeout);
  seconds("keepalive_timeout", p.keepalive_timeout);
  seconds("write_timeout", p.write_timeout);
  seconds("drain_timeout", p.drain_timeout);
  count("max_connections", p.max_connections);
  count("max_inflight_bytes", p.max_inflight_bytes);
  if (taken != fields.size())
    throw py::type_error("unknown connection policy option among "
                         + py::str(fields.attr("keys")()).cast<std::string>());
  return p;
}

/// (key, value, features) per restricted endpoint group.
using feature_group_tuple = std::tuple<std::string, std::string, std::vector<std::string>>;

std::unique_ptr<py_http_frontend>
make_http_frontend(py_server& srv, std::string address, int port, bool reuse_port,
                   int thread_count, std::string header_forward_pattern,
                   std::vector<feature_group_tuple> restricted_features,
                   bool allow_client_shm, int64_t max_inflight,
                   size_t max_input_size, size_t max_header_size, const py::dict& policy,
                   bool sagemaker, std::string sagemaker_default_model,
                   std::string sagemaker_ping_mode, std::string sagemaker_inference_type,
                   bool vertex_ai,
                   std::string vertex_ai_default_model, std::string vertex_ai_health_route,
                   std::string vertex_ai_predict_route) {
  actors::http_options o;
  o.address = std::move(address);
  o.port = port;
  o.reuse_port = reuse_port;
  o.thread_count = thread_count;
  o.header_forward_pattern = std::move(header_forward_pattern);
  for (auto& [key, value, features] : restricted_features)
    o.restricted_features.push_back({std::move(key), std::move(value), std::move(features)});
  o.allow_client_shm = allow_client_shm;
  o.max_inflight = max_inflight;
  o.max_input_size = max_input_size;
  o.max_header_size = max_header_size;
  o.policy = policy_from(policy);
  o.sagemaker = sagemaker;
  o.sagemaker_default_model = std::move(sagemaker_default_model);
  o.sagemaker_ping_mode = std::move(sagemaker_ping_mode);
  o.sagemaker_inference_type = std::move(sagemaker_inference_type);
  o.vertex_ai = vertex_ai;
  o.vertex_ai_default_model = std::move(vertex_ai_default_model);
  o.vertex_ai_health_route = std::move(vertex_ai_health_route);
  o.vertex_ai_predict_route = std::move(vertex_ai_predict_route);
  return std::make_unique<py_http_frontend>(srv, std::move(o));
}

/// The gRPC frontend from KServeGrpc.Options' fields as keyword arguments:
/// every field of actors::grpc_options, by its name.
std::unique_ptr<py_grpc_frontend> make_grpc_frontend(py_server& srv, const py::kwargs& kwargs) {
  actors::grpc_options o;
  size_t taken = 0;
  auto take = [&](const char* name, auto& field) {
    if (!kwargs.contains(name))
      return;
    ++taken;
    try {
      field = kwargs[name].cast<std::remove_reference_t<decltype(field)>>();
    } catch (const py::cast_error&) {
      throw py::type_error(std::string{"GrpcFrontend: option '"} + name
                           + "' has the wrong type or does not fit a C int");
    }
  };
  take("address", o.address);
  take("port", o.port);
  take("reuse_port", o.reuse_port);
  take("use_ssl", o.use_ssl);
  take("server_cert", o.server_cert);
  take("server_key", o.server_key);
  take("root_cert", o.root_cert);
  take("use_mutual_auth", o.use_mutual_auth);
  take("keepalive_time_ms", o.keepalive_time_ms);
  take("keepalive_timeout_ms", o.keepalive_timeout_ms);
  take("keepalive_permit_without_calls", o.keepalive_permit_without_calls);
  take("http2_max_pings_without_data", o.http2_max_pings_without_data);
  take("http2_min_recv_ping_interval_without_data_ms",
       o.http2_min_recv_ping_interval_without_data_ms);
  take("http2_max_ping_strikes", o.http2_max_ping_strikes);
  take("max_connection_age_ms", o.max_connection_age_ms);
  take("max_connection_age_grace_ms", o.max_connection_age_grace_ms);
  take("infer_compression_level", o.infer_compression_level);
  take("infer_thread_count", o.infer_thread_count);
  take("infer_allocation_pool_size", o.infer_allocation_pool_size);
  take("max_response_pool_size", o.max_response_pool_size);
  take("forward_header_pattern", o.forward_header_pattern);
  take("allow_client_shm", o.allow_client_shm);
  take("max_inflight", o.max_inflight);
  take("max_message_size", o.max_message_size);
  take("max_inflight_bytes", o.max_inflight_bytes);
  take("stream_high_water", o.stream_high_water);
  take("max_stream_backlog", o.max_stream_backlog);
  if (kwargs.contains("restricted_features")) {
    ++taken;
    auto groups = kwargs["restricted_features"].cast<std::vector<feature_group_tuple>>();
    for (auto& [key, value, features] : groups)
      o.restricted_features.push_back({std::move(key), std::move(value), std::move(features)});
  }
  if (taken != kwargs.size())
    throw py::type_error("GrpcFrontend: unknown option among "
                         + py::str(kwargs.attr("keys")()).cast<std::string>());
  return std::make_unique<py_grpc_frontend>(srv, std::move(o));
}

std::unique_ptr<py_metrics_frontend> make_metrics_frontend(py_server& srv, std::string address,
                                                           int port, int thread_count,
                                                           const py::dict& policy) {
  actors::metrics_options o;
  o.address = std::move(address);
  o.port = port;
  o.thread_count = thread_count;
  o.policy = policy_from(policy);
  return std::make_unique<py_metrics_frontend>(srv, std::move(o));
}

} // namespace

void bind_frontends(py::module_& m) {
  py::class_<py_http_frontend>(m, "HttpFrontend",
                               "The KServe HTTP frontend of a server; "
                               "conch.frontend.KServeHttp owns one.")
    .def(py::init(&make_http_frontend), py::arg("server"), py::arg("address") = "0.0.0.0",
         py::arg("port") = 8000, py::arg("reuse_port") = false, py::arg("thread_count") = 8,
         py::arg("header_forward_pattern") = "",
         py::arg("restricted_features") = std::vector<feature_group_tuple>{},
         py::arg("allow_client_shm") = false, py::arg("max_inflight") = 4096, py::arg("max_input_size") = size_t{64} << 20,
         py::arg("max_header_size") = size_t{64} << 10, py::arg("policy") = py::dict{},
         py::arg("sagemaker") = false,
         py::arg("sagemaker_default_model") = "unspecified_SAGEMAKER_TRITON_DEFAULT_MODEL_NAME",
         py::arg("sagemaker_ping_mode") = "ready", py::arg("sagemaker_inference_type") = "infer",
         py::arg("vertex_ai") = false,
         py::arg("vertex_ai_default_model") = "", py::arg("vertex_ai_health_route") = "",
         py::arg("vertex_ai_predict_route") = "",
         "Creates the frontend (SageMaker's paths with `sagemaker`, Vertex AI's with "
         "`vertex_ai`); binds nothing until start().")
    .def("start", &py_http_frontend::start, "Binds and starts serving (GIL released).")
    .def("stop", &py_http_frontend::stop, "Stops serving (GIL released).")
    .def_property_readonly("port", &py_http_frontend::port,
                           "The port the latest start bound; 0 before.");
  py::class_<py_grpc_frontend>(m, "GrpcFrontend",
                               "The KServe gRPC frontend of a server; "
                               "conch.frontend.KServeGrpc owns one.")
    .def(py::init(&make_grpc_frontend), py::arg("server"),
         "Creates the frontend from KServeGrpc.Options' fields as keyword arguments (the "
         "defaults for those left out); binds nothing until start().")
    .def("start", &py_grpc_frontend::start, "Binds and starts serving (GIL released).")
    .def("stop", &py_grpc_frontend::stop, "Stops serving (GIL released).")
    .def_property_readonly("port", &py_grpc_frontend::port,
                           "The port the latest start bound; 0 before.");
  py::class_<py_metrics_frontend>(m, "MetricsFrontend",
                                  "The Prometheus metrics frontend of a server; "
                                  "conch.frontend.Metrics owns one.")
    .def(py::init(&make_metrics_frontend), py::arg("server"), py::arg("address") = "0.0.0.0",
         py::arg("port") = 8002, py::arg("thread_count") = 1, py::arg("policy") = py::dict{},
         "Creates the frontend; binds nothing until start().")
    .def("start", &py_metrics_frontend::start, "Binds and starts serving (GIL released).")
    .def("stop", &py_metrics_frontend::stop, "Stops serving (GIL released).")
    .def_property_readonly("port", &py_metrics_frontend::port,
                           "The port the latest start bound; 0 before.");
}

} // namespace conch::python
