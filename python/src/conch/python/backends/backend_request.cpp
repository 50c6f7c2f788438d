#include "conch/python/backends/backend_request.hpp"

#include <algorithm>
#include <variant>

#include <pybind11/stl.h>

#include "conch/python/backends/bls_gateway.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/request.hpp"
#include "conch/python/status.hpp"
#include "conch/python/tensor_tuples.hpp"
#include "conch/runtime/backends/common/job_output.hpp"

namespace conch::python::backends {

namespace py = pybind11;
using runtime::errc;

std::vector<std::string> backend_request::requested_output_names() const {
  const auto& asked = request().requested_outputs;
  return asked.empty() ? facts_->outputs : asked;
}

backend_request::~backend_request() {
  if (final_sent_)
    return;
  if (rescheduled_) {
    // Not finished: its scheduler runs it again, with a request object of
    // its own.
    facts_->open_requests.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  // A model let go of a request it never finished (a decoupled model that
  // dropped its sender): it fails now, rather than when the job goes, which
  // may be never while whoever waits for it holds it (a BLS caller's queue).
  facts_->open_requests.fetch_sub(1, std::memory_order_relaxed);
  runtime::inference_response r;
  r.final = true;
  r.error = runtime::internal_error("model '" + facts_->name + "' let go of request '"
                                    + request().id + "' without sending its final response");
  for (auto& d : deferred_)
    job_->respond(std::move(d));
  job_->fail(std::move(r.error), runtime::failure_kind::backend);
}

void backend_request::set_release_flags(uint32_t flags) {
  constexpr uint32_t release_reschedule = 2;
  if ((flags & release_reschedule) == 0)
    return;
  if (!facts_->iterative)
    raise(errc::unsupported,
          "Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, but model '"
            + facts_->name + "' does not reschedule requests: its configuration needs "
            "sequence_batching { iterative_sequence: true }");
  std::lock_guard<std::mutex> guard{mu_};
  if (final_sent_)
    raise(errc::unsupported, "request '" + request().id
                               + "' cannot be rescheduled: its final response was sent");
  if (execute_returned_)
    raise(errc::unsupported, "request '" + request().id
                               + "' can only be rescheduled before the execute() that got it "
                                 "returns");
  rescheduled_ = true;
  job_->request_reschedule();
}

void backend_request::execute_returned() noexcept {
  std::lock_guard<std::mutex> guard{mu_};
  execute_returned_ = true;
}

bool backend_request::final_sent() const {
  std::lock_guard<std::mutex> guard{mu_};
  return final_sent_;
}

bool backend_request::deliver(runtime::inference_response&& r, runtime::failure_kind* failure) {
  // One answer at a time per request, and none after the final one: the
  // lock is held while the core delivers, which never waits for Python.
  std::lock_guard<std::mutex> guard{mu_};
  if (final_sent_)
    return false;
  final_sent_ = r.final || !r.error.is_ok();
  if (final_sent_)
    facts_->open_requests.fetch_sub(1, std::memory_order_relaxed);
  if (deferring_ && failure == nullptr) {
    deferred_.push_back(std::move(r));
    return true;
  }
  if (failure != nullptr)
    job_->fail(std::move(r.error), *failure);
  else
    job_->respond(std::move(r));
  return true;
}

void backend_request::respond(py::handle outputs, bool final, py::handle parameters) {
  // The model's first response begins the output phase (COMPUTE_OUTPUT_START).
  runtime::backends::common::mark_output_start(*job_);
  runtime::inference_response r;
  r.final = final;
  if (!outputs.is_none()) {
    for (py::handle item : outputs) {
      auto t = tensor_from_tuple(item);
      if (request().wants_output(t.name))
        r.outputs.push_back(std::move(t));
    }
  }
  if (!parameters.is_none())
    r.parameters = parameters_from_dict(py::reinterpret_borrow<py::dict>(parameters));
  bool delivered = false;
  {
    nogil released;
    delivered = deliver(std::move(r), nullptr);
  }
  if (!delivered)
    raise(errc::unsupported, "the final response of request '" + request().id
                               + "' was sent already");
}

void backend_request::fail(const std::string& message, errc code) {
  runtime::inference_response r;
  r.final = true;
  r.error = runtime::status{code, message};
  auto kind = code == errc::cancelled ? runtime::failure_kind::cancelled
                                      : runtime::failure_kind::backend;
  bool delivered = false;
  {
    nogil released;
    delivered = deliver(std::move(r), &kind);
  }
  if (!delivered)
    raise(errc::unsupported, "the final response of request '" + request().id
                               + "' was sent already");
}

void backend_request::defer(bool on) noexcept {
  std::lock_guard<std::mutex> guard{mu_};
  deferring_ = on;
}

void backend_request::flush() noexcept {
  std::lock_guard<std::mutex> guard{mu_};
  deferring_ = false;
  for (auto& r : deferred_)
    job_->respond(std::move(r));
  deferred_.clear();
}

void backend_request::fail_unless_answered(const std::string& message) noexcept {
  runtime::inference_response r;
  r.final = true;
  r.error = runtime::internal_error(message);
  auto kind = runtime::failure_kind::backend;
  deliver(std::move(r), &kind);
}

namespace {

errc error_code(const std::string& name) {
  static const std::pair<const char*, errc> codes[] = {
    {"internal", errc::internal},         {"not_found", errc::not_found},
    {"invalid_argument", errc::invalid_argument}, {"unavailable", errc::unavailable},
    {"unsupported", errc::unsupported},   {"already_exists", errc::already_exists},
    {"cancelled", errc::cancelled},       {"unknown", errc::unknown},
  };
  for (const auto& [n, c] : codes)
    if (name == n)
      return c;
  raise(errc::invalid_argument, "unknown error code '" + name + "'");
}

py::object correlation_id_of(const runtime::inference_request& r) {
  if (const auto* s = std::get_if<std::string>(&r.correlation_id))
    return py::str(*s);
  if (const auto* n = std::get_if<uint64_t>(&r.correlation_id))
    return py::int_(*n);
  return py::none();
}

} // namespace

void bind_backend_request(py::module_& m) {
  using br = backend_request;
  py::class_<br, backend_request_ptr>(m, "BackendRequest",
                                      "One request of a batch, as a Python backend sees it.")
    .def_property_readonly("id", [](const br& r) { return r.request().id; })
    .def_property_readonly("model_name", [](const br& r) { return r.facts().name; })
    .def_property_readonly("model_version", [](const br& r) { return r.facts().version; })
    .def_property_readonly("decoupled", [](const br& r) { return r.facts().decoupled; })
    .def_property_readonly("correlation_id",
                           [](const br& r) { return correlation_id_of(r.request()); })
    .def_property_readonly("flags", [](const br& r) { return r.request().flags; })
    .def_property_readonly("priority", [](const br& r) { return r.request().priority; })
    .def_property_readonly("timeout_us", [](const br& r) { return r.request().timeout_us; })
    .def_property_readonly("parameters",
                           [](const br& r) { return parameters_to_dict(r.request().parameters); })
    .def_property_readonly("final_sent", &br::final_sent)
    .def_property_readonly("trace",
                           [](const br& r) -> py::object {
                             const auto& t = r.request().trace;
                             return t ? py::cast(trace_handle{t}) : py::none();
                           })
    .def("inputs", [](const br& r) { return tensor_tuples(r.request().inputs); },
         "(name, data_type, shape, data_ptr, memory_type, memory_type_id, size, Buffer) "
         "per input.")
    .def("requested_output_names", &br::requested_output_names)
    .def("is_cancelled", &br::is_cancelled)
    .def("set_release_flags", &br::set_release_flags, py::arg("flags"))
    .def_property_readonly("rescheduled", &br::rescheduled)
    .def("take_sender", &br::take_sender)
    .def("respond", &br::respond, py::arg("outputs"), py::arg("final") = true,
         py::arg("parameters") = py::none(),
         "Sends a response; outputs are tensor tuples as conch._tensor.native_input "
         "makes them.")
    .def(
      "fail",
      [](br& r, const std::string& message, const std::string& code) {
        r.fail(message, error_code(code));
      },
      py::arg("message"), py::arg("code") = "internal", "Sends a final error response.");
}

} // namespace conch::python::backends
