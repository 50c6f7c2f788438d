#include "conch/python/backends/bls_gateway.hpp"

#include <future>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include <pybind11/stl.h>

#include "conch/actors/server.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/status.hpp"
#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/thread_role.hpp"

namespace conch::python::backends {

namespace py = pybind11;

std::string trace_handle::context_json() const {
  auto c = trace->child_context();
  auto hex = [](const uint8_t* p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      out += digits[p[i] >> 4];
      out += digits[p[i] & 15];
    }
    return out;
  };
  uint8_t flags = c.flags == 0 ? 1 : c.flags;  // a traced request is sampled
  std::string json = "{\"traceparent\":\"00-" + hex(c.trace_id.data(), 16) + "-"
                     + hex(c.parent_span_id.data(), 8) + "-" + hex(&flags, 1) + "\"";
  if (!c.state.empty())
    json += ",\"tracestate\":\"" + c.state + "\"";
  return json + "}";
}

submitted_request bls_gateway::infer(const request_fields& fields,
                                     const std::vector<std::string>& outputs, bool decoupled,
                                     py::object on_response, const trace_handle* trace) {
  // A model's worker lets deferred releases be (gil.hpp, rule 3): they could
  // run finalizers that wait for this very thread.
  if (!runtime::this_thread_runs_models)
    run_deferred();
  if (!models_)
    raise(runtime::errc::unavailable,
          "model '" + caller_->name + "' runs without a server: it cannot send BLS requests");
  // A request the stop drains may still call the models it needs; anything
  // else that calls now is refused as a client's new request would be.
  if (!models_->admitting() && caller_->open_requests.load(std::memory_order_relaxed) == 0)
    raise(runtime::errc::unavailable, "Server is stopping: model '" + caller_->name
                                        + "' cannot send a BLS request");
  // Triton's texts: a model that cannot take the request "is not ready", and
  // a decoupled one needs exec(decoupled=True).
  const auto& name = fields.model_name;
  auto config = models_->config_of(name, fields.model_version);
  if (!config)
    raise(config.error().code(), "Model " + name + " - Error when running inference: Failed for "
                                   "execute the inference request. Model '" + name
                                   + "' is not ready.");
  if (!decoupled && (*config)->model_transaction_policy().decoupled())
    raise(runtime::errc::invalid_argument,
          "Model " + name + " - Error when running inference: Model " + name
            + " is using the decoupled. The current BLS request call doesn't support models "
              "using the decoupled transaction policy. Please use 'decoupled=True' argument to "
              "the 'exec' or 'async_exec' calls for decoupled models.'");
  auto request = build_request(fields);
  request.requested_outputs = outputs;
  if (trace != nullptr && trace->trace)
    request.trace = trace->trace->spawn_child(name);
  py_ref callable;
  if (!on_response.is_none())
    callable = py_ref::borrow(on_response.ptr());
  auto queue = std::make_shared<response_queue>(std::move(callable));
  auto job = std::make_shared<runtime::inference_job>(
    std::move(request), [queue](runtime::inference_response&& r) { queue->push(std::move(r)); });
  {
    // A C++ model with an idle instance may answer on this thread; a Python
    // model answers on its own worker, which then finds the GIL free.
    nogil released;
    models_->submit(job);
  }
  queue->set_handle(actors::request_handle{std::move(job)});
  return submitted_request{std::move(queue)};
}

namespace {

/// Runs `start(done)` and waits for `done`'s status with the GIL released.
template <class Start>
runtime::status wait_for(Start&& start) {
  auto promise = std::make_shared<std::promise<runtime::status>>();
  auto outcome = promise->get_future();
  nogil released;
  start([promise](runtime::status st) { promise->set_value(std::move(st)); });
  try {
    return outcome.get();
  } catch (const std::future_error&) {
    // The answer was dropped unsent: the actor system is going.
    return runtime::unavailable("server is stopping");
  }
}

} // namespace

void bls_gateway::load(const std::string& name, const std::string& config_json,
                       const std::vector<std::pair<std::string, std::string>>& files) {
  if (!models_)
    raise(runtime::errc::unavailable, "model '" + caller_->name + "' runs without a server");
  // Its own reload would wait for its own execute() (the old version's
  // drain) or behind its own load (from initialize()).
  if (name == caller_->name)
    raise(runtime::errc::unsupported, "model '" + name + "' cannot load itself");
  runtime::load_parameters params;
  if (!config_json.empty())
    params.config_json = config_json;
  params.files = files;
  throw_if_error(
    wait_for([&](auto done) { models_->load(name, std::move(params), std::move(done)); }));
}

namespace {

// The models an unload_model began to unload, per server (its model
// gateway), until the unload ends: the model table still routes to them
// until the repository took the unload in, which may be after
// unload_model returned.
// Keyed by the gateway itself, weakly: a server gone (whose unload may never
// have answered) takes its entries with it, and a later server never meets
// them, whatever its address.
struct unloads_in_flight {
  using server_key = std::weak_ptr<runtime::backends::model_gateway>;
  std::mutex mu;
  std::map<server_key, std::multiset<std::string>, std::owner_less<server_key>> names;

  static unloads_in_flight& global() {
    static auto* instance = new unloads_in_flight; // outlives model threads at exit
    return *instance;
  }

  // Forgets the servers that are gone. Requires `mu`.
  void prune() {
    for (auto i = names.begin(); i != names.end();)
      i = i->first.expired() ? names.erase(i) : std::next(i);
  }
};

} // namespace

void bls_gateway::unload(const std::string& name, bool unload_dependents) {
  if (!models_)
    raise(runtime::errc::unavailable, "model '" + caller_->name + "' runs without a server");
  // As Triton, it returns once the unload began: waiting could wait for the
  // caller itself (an unload drains the models' requests, the caller's BLS
  // requests and ensemble steps among them). A failure is logged.
  auto& in_flight = unloads_in_flight::global();
  unloads_in_flight::server_key server = models_;
  {
    std::lock_guard<std::mutex> guard{in_flight.mu};
    in_flight.prune();
    in_flight.names[server].insert(name);
  }
  models_->unload(name, unload_dependents, [name, server](const runtime::status& st) {
    if (!st)
      CONCH_LOG_WARN << "unload_model('" << name << "') failed: " << st.message();
    auto& in_flight = unloads_in_flight::global();
    std::lock_guard<std::mutex> guard{in_flight.mu};
    auto i = in_flight.names.find(server);
    if (i == in_flight.names.end())
      return;
    if (auto n = i->second.find(name); n != i->second.end())
      i->second.erase(n);
    if (i->second.empty())
      in_flight.names.erase(i);
  });
}

bool bls_gateway::ready(const std::string& name, int64_t version) const {
  if (!models_)
    return false;
  {
    auto& in_flight = unloads_in_flight::global();
    std::lock_guard<std::mutex> guard{in_flight.mu};
    auto i = in_flight.names.find(unloads_in_flight::server_key{models_});
    if (i != in_flight.names.end() && i->second.count(name) != 0)
      return false;
  }
  return static_cast<bool>(models_->config_of(name, version));
}

void bind_bls_gateway(py::module_& m) {
  py::class_<trace_handle>(m, "RequestTrace", "The trace of a request a Python model runs.")
    .def_property_readonly("id", [](const trace_handle& t) { return t.trace->id(); })
    .def_property_readonly("parent_id",
                           [](const trace_handle& t) { return t.trace->parent_id(); })
    .def("context_json", &trace_handle::context_json);
  py::class_<bls_gateway, std::shared_ptr<bls_gateway>>(
    m, "BlsGateway", "The server's models as one Python model calls them (BLS).")
    .def(
      "infer",
      [](bls_gateway& g, std::string model_name, int64_t model_version, py::list inputs,
         py::dict parameters, py::object request_id, uint32_t flags, py::object correlation_id,
         uint64_t timeout_us, std::vector<std::string> outputs, bool decoupled,
         py::object on_response, const trace_handle* trace) {
        request_fields f;
        f.model_name = std::move(model_name);
        f.model_version = model_version;
        f.inputs = std::move(inputs);
        f.parameters = std::move(parameters);
        f.request_id = std::move(request_id);
        f.flags = flags;
        f.correlation_id = std::move(correlation_id);
        f.timeout_us = timeout_us;
        return g.infer(f, outputs, decoupled, std::move(on_response), trace);
      },
      py::arg("model_name"), py::arg("model_version"), py::arg("inputs"), py::arg("parameters"),
      py::arg("request_id"), py::arg("flags"), py::arg("correlation_id"), py::arg("timeout_us"),
      py::arg("outputs"), py::arg("decoupled"), py::arg("on_response") = py::none(),
      py::arg("trace") = nullptr,
      "Submits a request to a model of this server; returns its RequestHandle.")
    .def("load", &bls_gateway::load, py::arg("name"), py::arg("config_json"), py::arg("files"),
         "Loads a model and waits (GIL released); raises its failure.")
    .def("unload", &bls_gateway::unload, py::arg("name"), py::arg("unload_dependents"),
         "Begins unloading a model and returns.")
    .def("ready", &bls_gateway::ready, py::arg("name"), py::arg("version"))
    .def_property_readonly("server_id", &bls_gateway::server_id)
    .def_property_readonly("caller", &bls_gateway::caller);
}

} // namespace conch::python::backends
