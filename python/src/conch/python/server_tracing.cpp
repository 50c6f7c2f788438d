// The trace settings of _conch.Server (server.hpp).

#include <pybind11/stl.h>

#include "conch/python/server.hpp"
#include "conch/python/status.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::tracing::trace_value;

namespace {

py::list to_python(const runtime::tracing::trace_settings& settings) {
  py::list out;
  for (const auto& [key, values] : runtime::tracing::report(settings))
    out.append(py::make_tuple(key, py::cast(values)));
  return out;
}

// As the network frontends answer for a model that is not ready.
void check_model(actors::server& srv, const std::string& model) {
  if (!model.empty() && !srv.model_ready(model))
    throw_if_error(runtime::invalid_argument("Request for unknown model : " + model));
}

// A setting's value as Python gave it: None clears, a str or a list of str.
runtime::result<std::optional<trace_value>> value_of(const py::dict& settings,
                                                     std::string_view key) {
  py::str k{key.data(), key.size()};
  if (!settings.contains(k))
    return std::optional<trace_value>{};
  py::handle v = settings[k];
  if (v.is_none())
    return std::optional<trace_value>{trace_value{}};
  if (py::isinstance<py::str>(v))
    return std::optional<trace_value>{trace_value{{v.cast<std::string>()}}};
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::vector<std::string> values;
    for (auto e : v) {
      if (!py::isinstance<py::str>(e))
        return runtime::invalid_argument("trace setting '" + std::string{key}
                                         + "' must hold str values");
      values.push_back(e.cast<std::string>());
    }
    return std::optional<trace_value>{trace_value{std::move(values)}};
  }
  return runtime::invalid_argument("trace setting '" + std::string{key}
                                   + "' must be a str, a list of str or None");
}

} // namespace

py::list py_server::trace_settings(const std::string& model) {
  auto h = host();
  try {
    check_model(h->server(), model);
  } catch (...) {
    drop(h);
    throw;
  }
  auto settings = h->server().trace_settings(model);
  drop(h);
  return to_python(settings);
}

py::list py_server::update_trace_settings(const std::string& model, const py::dict& settings) {
  auto h = host();
  std::optional<runtime::result<runtime::tracing::trace_settings>> out;
  try {
    check_model(h->server(), model);
    auto update = runtime::tracing::parse_trace_update(
      [&settings](std::string_view key) { return value_of(settings, key); });
    if (!update)
      throw_if_error(update.error());
    out = h->server().update_trace_settings(model, *update);
  } catch (...) {
    drop(h);
    throw;
  }
  drop(h);
  if (!*out)
    throw_if_error(out->error());
  return to_python(**out);
}

void py_server::flush_traces() {
  auto h = host();
  {
    nogil released;
    h->server().flush_traces();
  }
  drop(h);
}

} // namespace conch::python
