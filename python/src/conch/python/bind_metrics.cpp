// _conch.MetricFamily and _conch.Metric: custom counters and gauges in the
// process-wide registry that every server's exposition includes.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "conch/python/bindings.hpp"
#include "conch/python/status.hpp"
#include "conch/runtime/statistics/custom_metric.hpp"
#include "conch/runtime/statistics/custom_metric_family.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

using runtime::statistics::custom_metric;
using runtime::statistics::custom_metric_family;
using runtime::statistics::metric_kind;

/// The Python face of a family: a shared handle, so that the metrics made
/// from it keep it alive after the Python object is gone.
struct py_metric_family {
  std::shared_ptr<custom_metric_family> family;
};

py_metric_family make_family(int kind, const std::string& name, const std::string& description) {
  if (kind != static_cast<int>(metric_kind::counter)
      && kind != static_cast<int>(metric_kind::gauge)
      && kind != static_cast<int>(metric_kind::histogram))
    raise(runtime::errc::invalid_argument, "metric kind " + std::to_string(kind)
                                             + " is not COUNTER (0), GAUGE (1) or HISTOGRAM (2)");
  auto family = custom_metric_family::make(custom_metric_family::process_registry(),
                                           static_cast<metric_kind>(kind), name, description);
  throw_if_error(family.error());
  return {std::move(*family)};
}

std::unique_ptr<custom_metric> make_metric(const py_metric_family& family,
                                           const std::map<std::string, std::string>& labels,
                                           const std::vector<double>& buckets) {
  auto metric = custom_metric::make(family.family, labels, buckets);
  throw_if_error(metric.error());
  return std::move(*metric);
}

} // namespace

void bind_metrics(py::module_& m) {
  py::class_<py_metric_family>(m, "MetricFamily")
    .def(py::init(&make_family), py::arg("kind"), py::arg("name"), py::arg("description"))
    .def_property_readonly("kind", [](const py_metric_family& f) {
      return static_cast<int>(f.family->kind());
    })
    .def_property_readonly("name", [](const py_metric_family& f) { return f.family->name(); })
    .def_property_readonly("description",
                           [](const py_metric_family& f) { return f.family->description(); });
  py::class_<custom_metric>(m, "Metric")
    .def(py::init(&make_metric), py::arg("family"), py::arg("labels"),
         py::arg("buckets") = std::vector<double>{})
    .def_property_readonly("kind",
                           [](const custom_metric& c) { return static_cast<int>(c.kind()); })
    .def_property_readonly("value", &custom_metric::value)
    .def(
      "increment",
      [](custom_metric& c, double delta) { throw_if_error(c.increment(delta)); },
      py::arg("value"))
    .def(
      "set_value", [](custom_metric& c, double v) { throw_if_error(c.set_value(v)); },
      py::arg("value"))
    .def(
      "observe", [](custom_metric& c, double v) { throw_if_error(c.observe(v)); },
      py::arg("value"));
}

} // namespace conch::python
