// _conch.Trace: a request trace made by Python code (tritonserver._c's
// TRITONSERVER_InferenceTrace), whose finished record is handed to a Python
// callable instead of a trace file or an exporter.

#include <atomic>
#include <memory>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "conch/python/bindings.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/py_trace.hpp"
#include "conch/runtime/request_trace.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

// Trace ids of the traces Python makes, apart from any server's.
std::atomic<uint64_t> next_python_trace_id{0};

py::dict to_python(const runtime::trace_record& r) {
  py::dict d;
  d["id"] = r.id;
  d["parent_id"] = r.parent_id;
  d["model_name"] = r.model_name;
  d["model_version"] = r.model_version;
  d["request_id"] = r.request_id;
  py::list stamps;
  for (const auto& s : r.stamps)
    stamps.append(py::make_tuple(s.name, s.ns));
  d["stamps"] = stamps;
  py::list tensors;
  for (const auto& t : r.tensors) {
    const auto& v = t.value;
    tensors.append(py::make_tuple(t.activity, v.name, static_cast<int>(v.type),
                                  reinterpret_cast<uintptr_t>(v.data.data()), v.data.size(),
                                  py::cast(v.shape), static_cast<int>(v.data.type()),
                                  v.data.device_id()));
  }
  d["tensors"] = tensors;
  py::list children;
  for (const auto& c : r.children)
    children.append(to_python(c));
  d["children"] = children;
  return d;
}

// A finished record and where it goes, waiting for the GIL.
struct delivery {
  std::shared_ptr<py_ref> deliver;
  runtime::trace_record record;
};

void deliver_now(void* arg) {
  std::unique_ptr<delivery> d{static_cast<delivery*>(arg)};
  // Runs with the GIL; the tensors' bytes stay valid until `d` goes.
  try {
    py::handle fn{d->deliver->get()};
    fn(to_python(d->record));
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("Conch trace delivery");
  }
}

/// Hands each finished trace to a Python callable, as a dict, on a thread
/// that holds the GIL (gil.hpp, rule 3).
class python_trace_sink final : public runtime::trace_sink {
 public:
  explicit python_trace_sink(py_ref deliver)
    : deliver_(std::make_shared<py_ref>(std::move(deliver))) {}

  // Called by whichever thread lets the trace go, which need not hold the
  // GIL: the call waits for a thread that does.
  void submit(runtime::trace_record&& record) noexcept override {
    try {
      call_with_gil(&deliver_now, new delivery{deliver_, std::move(record)}, true);
    } catch (...) {
      // Out of memory: the trace is lost.
    }
  }

  uint64_t next_id() noexcept override {
    return next_python_trace_id.fetch_add(1, std::memory_order_relaxed) + 1;
  }

 private:
  std::shared_ptr<py_ref> deliver_;
};

} // namespace

void bind_trace(py::module_& m) {
  py::class_<python_trace, std::shared_ptr<python_trace>>(
    m, "Trace", "A request trace whose finished record goes to a Python callable.")
    .def(py::init([](uint32_t level, uint64_t parent_id, py::object deliver) {
           auto sink = std::make_shared<python_trace_sink>(py_ref::borrow(deliver.ptr()));
           return std::make_shared<python_trace>(python_trace{
             std::make_shared<runtime::request_trace>(sink, level, "", parent_id)});
         }),
         py::arg("level"), py::arg("parent_id"), py::arg("deliver"),
         "deliver(record: dict) is called once the trace is finished, with the GIL.")
    .def_property_readonly("id",
                           [](const python_trace& t) { return t.trace ? t.trace->id() : 0; });
}

} // namespace conch::python
