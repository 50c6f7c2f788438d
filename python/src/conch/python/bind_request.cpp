// _conch.Response (one inference response) and _conch.RequestHandle (the
// responses of a submitted request, and its cancellation).

#include <chrono>
#include <cmath>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "conch/python/bindings.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/request.hpp"
#include "conch/python/status.hpp"
#include "conch/python/tensor_tuples.hpp"
#include "conch/runtime/thread_role.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::inference_response;

namespace {

py::object error_of(const inference_response& r) {
  if (r.error.is_ok())
    return py::none();
  return make_exception(r.error);
}

// Slices of a wait: between them the thread takes the GIL back to let Python
// handle signals (Ctrl-C), which cannot interrupt a wait in C++.
constexpr std::chrono::milliseconds wait_slice{100};

py::object next_response(submitted_request& s, std::optional<double> timeout) {
  // Not on a model's worker, which waits here for its BLS requests (gil.hpp,
  // rule 3).
  if (!runtime::this_thread_runs_models)
    run_deferred();
  using clock = std::chrono::steady_clock;
  auto deadline = clock::time_point::max();
  if (timeout && std::isfinite(*timeout))
    deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                std::chrono::duration<double>(std::max(0.0, *timeout)));
  std::optional<inference_response> out;
  for (;;) {
    auto slice = std::min<clock::duration>(wait_slice, deadline - clock::now());
    response_queue::wait_result result;
    {
      nogil released;
      result = s.queue->pop(std::max<clock::duration>(slice, clock::duration::zero()), out);
    }
    if (result == response_queue::wait_result::ok)
      return py::cast(std::move(*out));
    if (result == response_queue::wait_result::busy)
      raise(runtime::errc::already_exists, "cannot call GetNextResponse concurrently");
    if (PyErr_CheckSignals() != 0)
      throw py::error_already_set();
    if (clock::now() >= deadline)
      return py::none();
  }
}

} // namespace

void bind_request(py::module_& m) {
  py::class_<inference_response>(m, "Response", "One response of an inference request.")
    .def_readonly("model_name", &inference_response::model_name)
    .def_readonly("model_version", &inference_response::model_version)
    .def_readonly("id", &inference_response::id)
    .def_readonly("final", &inference_response::final)
    .def_property_readonly("error", &error_of,
                           "The conch error of a failed request, or None.")
    .def_property_readonly("parameters", [](const inference_response& r) {
      return parameters_to_dict(r.parameters);
    })
    .def_property_readonly("outputs", [](const inference_response& r) { return tensor_tuples(r.outputs); },
                           "A list of (name, data_type, shape, data_ptr, memory_type, "
                           "memory_type_id, size, Buffer) tuples.");

  py::class_<submitted_request>(m, "RequestHandle",
                                "The responses of a submitted request, and its cancellation.")
    .def("get", &next_response, py::arg("timeout") = py::none(),
         "Waits for the next response (GIL released); None when `timeout` "
         "seconds passed first. Raises AlreadyExistsError when another thread "
         "waits already.")
    .def(
      "try_get",
      [](submitted_request& s) -> py::object {
        auto r = s.queue->try_pop();
        return r ? py::cast(std::move(*r)) : py::none();
      },
      "The next response if one arrived, else None.")
    .def("cancel", [](submitted_request& s) { s.queue->cancel(); },
         "Cancels the request; a no-op once it completed.")
    .def_property_readonly("completed", [](const submitted_request& s) {
      return s.queue->final_seen();
    });
}

} // namespace conch::python
