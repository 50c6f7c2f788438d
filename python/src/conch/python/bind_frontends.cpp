// _conch.HttpFrontend, _conch.GrpcFrontend, _conch.MetricsFrontend and _conch.OpenAiFrontend: the
// network frontends, owned by conch.frontend's classes.

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
#include "conch/actors/openai_frontend.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/py_frontend.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

using py_http_frontend = py_frontend<actors::http_frontend, actors::http_options>;
using py_grpc_frontend = py_frontend<actors::grpc_frontend, actors::grpc_options>;
using py_metrics_frontend = py_frontend<actors::metrics_frontend, actors::metrics_options>;
using py_openai_frontend = py_frontend<actors::openai_frontend, actors::openai_options>;

/// (apis, key, value) per restricted OpenAI API group.
using api_group_tuple = std::tuple<std::vector<std::string>, std::string, std::string>;

/// (key, value, features) per restricted endpoint group.
using feature_group_tuple = std::tuple<std::string, std::string, std::vector<std::string>>;

/// Sets one option from its Python value. Timeouts are given in seconds.
void assign(const char* name, const py::handle& value, std::chrono::milliseconds& field) {
  auto s = value.cast<double>();
  if (!(s >= 0) || s > 1e9)
    throw py::value_error(std::string{name} + " must be between 0 and 1e9 seconds");
  auto ms = static_cast<int64_t>(s * 1000 + 0.5);
  if (s > 0 && ms == 0)
    ms = 1; // a positive timeout never rounds to "disabled"
  field = std::chrono::milliseconds{ms};
}

void assign(const char*, const py::handle& value, std::vector<actors::feature_group>& field) {
  field.clear();
  for (auto& [key, value_, features] : value.cast<std::vector<feature_group_tuple>>())
    field.push_back({std::move(key), std::move(value_), std::move(features)});
}

void assign(const char*, const py::handle& value,
            std::vector<actors::openai_restricted_api>& field) {
  field.clear();
  for (auto& [apis, key, value_] : value.cast<std::vector<api_group_tuple>>())
    field.push_back({std::move(apis), std::move(key), std::move(value_)});
}

template <class T>
void assign(const char*, const py::handle& value, T& field) {
  field = value.cast<T>();
}

/// A frontend's options from keyword arguments named as its options are
/// (for_each_option); those left out keep their C++ defaults.
template <class Options>
Options options_from(const py::kwargs& kwargs, const char* frontend) {
  Options o;
  size_t taken = 0;
  for_each_option(o, [&](const char* name, auto& field) {
    if (!kwargs.contains(name))
      return;
    ++taken;
    try {
      assign(name, kwargs[name], field);
    } catch (const py::cast_error&) {
      throw py::type_error(std::string{frontend} + ": option '" + name
                           + "' has the wrong type or does not fit its C type");
    }
  });
  if (taken != kwargs.size())
    throw py::type_error(std::string{frontend} + ": unknown option among "
                         + py::str(kwargs.attr("keys")()).cast<std::string>());
  return o;
}

/// A frontend's default options by name, for the Python dataclasses that
/// describe them: timeouts in seconds; restricted features left out (none).
template <class Options>
py::dict defaults_of() {
  Options o;
  py::dict out;
  for_each_option(o, [&](const char* name, auto& field) {
    using field_type = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<field_type, std::chrono::milliseconds>)
      out[name] = static_cast<double>(field.count()) / 1000.0;
    else if constexpr (!std::is_same_v<field_type, std::vector<actors::feature_group>>
                       && !std::is_same_v<field_type,
                                          std::vector<actors::openai_restricted_api>>)
      out[name] = field;
  });
  return out;
}

template <class Py, class Options>
std::unique_ptr<Py> make_frontend(py_server& srv, const py::kwargs& kwargs, const char* name) {
  return std::make_unique<Py>(srv, options_from<Options>(kwargs, name));
}

/// A chat renderer that calls `render(messages_json, tools_json) -> str` with
/// the GIL held, from the frontend's render threads (rule 2 of gil.hpp: a
/// thread that finds the interpreter finalizing parks rather than unwind);
/// a Python exception's message (not its traceback) becomes the error the
/// client gets. The callable is dropped without waiting for the GIL (py_ref).
actors::chat_renderer python_renderer(const py::handle& render) {
  auto ref = std::make_shared<py_ref>(py_ref::borrow(render.ptr()));
  return [ref](const transports::openai::chat_prompt& chat) -> runtime::result<std::string> {
    std::string prompt;
    std::string error;
    bool ok = false;
    bool entered = with_gil_or_park([&] {
      try {
        auto fn = py::reinterpret_borrow<py::object>(ref->get());
        prompt = fn(py::str(chat.messages_json.data(), chat.messages_json.size()),
                    py::str(chat.tools_json.data(), chat.tools_json.size()))
                   .cast<std::string>();
        ok = true;
      } catch (py::error_already_set& e) {
        error = py::str(e.value()).cast<std::string>();
        if (error.empty())
          error = py::str(e.type().attr("__name__")).cast<std::string>();
      } catch (const py::cast_error&) {
        error = "the chat template did not render a string";
      }
    });
    if (!entered)
      return runtime::unavailable("the server is stopping");
    if (!ok)
      return runtime::invalid_argument(error);
    return prompt;
  };
}

/// A token counter that calls `count(text) -> int` with the GIL held, from
/// the frontend's render threads; nullopt when it raises or answers no int.
actors::token_counter python_counter(const py::handle& count) {
  auto ref = std::make_shared<py_ref>(py_ref::borrow(count.ptr()));
  return [ref](std::string_view text) -> std::optional<int64_t> {
    std::optional<int64_t> n;
    with_gil_or_park([&] {
      try {
        auto fn = py::reinterpret_borrow<py::object>(ref->get());
        // A model's text may hold ill-formed UTF-8: counted as replaced.
        auto decoded = py::reinterpret_steal<py::object>(PyUnicode_DecodeUTF8(
          text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
        if (!decoded)
          throw py::error_already_set();
        n = fn(decoded).cast<int64_t>();
      } catch (py::error_already_set&) {
      } catch (const py::cast_error&) {
      }
    });
    return n;
  };
}

/// Takes keyword `name` out of `kwargs`: None when absent.
py::object take_kwarg(py::kwargs& kwargs, const char* name) {
  if (!kwargs.contains(name))
    return py::none();
  py::object value = kwargs[name];
  PyDict_DelItemString(kwargs.ptr(), name);
  return value;
}

std::unique_ptr<py_openai_frontend> make_openai_frontend(py_server& srv, py::kwargs kwargs) {
  py::object render = take_kwarg(kwargs, "chat_template");
  py::object count = take_kwarg(kwargs, "count_tokens");
  auto options = options_from<actors::openai_options>(kwargs, "OpenAiFrontend");
  if (!render.is_none()) {
    if (!PyCallable_Check(render.ptr()))
      throw py::type_error("OpenAiFrontend: chat_template must be callable");
    options.chat_template = python_renderer(render);
  }
  if (!count.is_none()) {
    if (!PyCallable_Check(count.ptr()))
      throw py::type_error("OpenAiFrontend: count_tokens must be callable");
    options.count_tokens = python_counter(count);
  }
  return std::make_unique<py_openai_frontend>(srv, std::move(options));
}

} // namespace

void bind_frontends(py::module_& m) {
  py::class_<py_http_frontend>(m, "HttpFrontend",
                               "The KServe HTTP frontend of a server; "
                               "conch.frontend.KServeHttp owns one.")
    .def(py::init([](py_server& srv, const py::kwargs& kwargs) {
           return make_frontend<py_http_frontend, actors::http_options>(srv, kwargs,
                                                                          "HttpFrontend");
         }),
         py::arg("server"),
         "Creates the frontend from its options as keyword arguments, named as "
         "defaults() names them (SageMaker's paths with `sagemaker`, Vertex AI's with "
         "`vertex_ai`); binds nothing until start().")
    .def_static("defaults", &defaults_of<actors::http_options>,
                "The default of every option but restricted_features (timeouts in seconds).")
    .def("start", &py_http_frontend::start, "Binds and starts serving (GIL released).")
    .def("stop", &py_http_frontend::stop, "Stops serving (GIL released).")
    .def_property_readonly("port", &py_http_frontend::port,
                           "The port the latest start bound; 0 before.");
  py::class_<py_grpc_frontend>(m, "GrpcFrontend",
                               "The KServe gRPC frontend of a server; "
                               "conch.frontend.KServeGrpc owns one.")
    .def(py::init([](py_server& srv, const py::kwargs& kwargs) {
           return make_frontend<py_grpc_frontend, actors::grpc_options>(srv, kwargs,
                                                                          "GrpcFrontend");
         }),
         py::arg("server"),
         "Creates the frontend from KServeGrpc.Options' fields as keyword arguments (the "
         "defaults for those left out); binds nothing until start().")
    .def_static("defaults", &defaults_of<actors::grpc_options>,
                "The default of every option but restricted_features.")
    .def("start", &py_grpc_frontend::start, "Binds and starts serving (GIL released).")
    .def("stop", &py_grpc_frontend::stop, "Stops serving (GIL released).")
    .def_property_readonly("port", &py_grpc_frontend::port,
                           "The port the latest start bound; 0 before.");
  py::class_<py_metrics_frontend>(m, "MetricsFrontend",
                                  "The Prometheus metrics frontend of a server; "
                                  "conch.frontend.Metrics owns one.")
    .def(py::init([](py_server& srv, const py::kwargs& kwargs) {
           return make_frontend<py_metrics_frontend, actors::metrics_options>(srv, kwargs,
                                                                                "MetricsFrontend");
         }),
         py::arg("server"),
         "Creates the frontend from its options as keyword arguments, named as defaults() "
         "names them; binds nothing until start().")
    .def_static("defaults", &defaults_of<actors::metrics_options>,
                "The default of every option (timeouts in seconds).")
    .def("start", &py_metrics_frontend::start, "Binds and starts serving (GIL released).")
    .def("stop", &py_metrics_frontend::stop, "Stops serving (GIL released).")
    .def_property_readonly("port", &py_metrics_frontend::port,
                           "The port the latest start bound; 0 before.");
  py::class_<py_openai_frontend>(m, "OpenAiFrontend",
                                 "The OpenAI-compatible frontend of a server; "
                                 "conch.frontend.OpenAI owns one.")
    .def(py::init([](py_server& srv, const py::kwargs& kwargs) {
           return make_openai_frontend(srv, kwargs);
         }),
         py::arg("server"),
         "Creates the frontend from its options as keyword arguments, named as defaults() "
         "names them, `chat_template`, a callable (messages_json, tools_json) -> prompt, and "
         "`count_tokens`, a callable (text) -> int; binds nothing until start().")
    .def_static("defaults", &defaults_of<actors::openai_options>,
                "The default of every option but restricted_apis (timeouts in seconds).")
    .def("start", &py_openai_frontend::start, "Binds and starts serving (GIL released).")
    .def("stop", &py_openai_frontend::stop, "Stops serving (GIL released).")
    .def_property_readonly("port", &py_openai_frontend::port,
                           "The port the latest start bound; 0 before.");
}

} // namespace conch::python
