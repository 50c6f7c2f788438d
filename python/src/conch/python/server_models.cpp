// The model, repository and inference methods of py_server.

#include <pybind11/stl.h>

#include "conch/runtime/repository/model_state.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/server.hpp"
#include "conch/python/status.hpp"
#include "conch/runtime/model_config/json.hpp"
#include "conch/runtime/statistics/statistics_json.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::status;

std::string py_server::model_config(const std::string& name, int64_t version) {
  auto h = host();
  auto config = h->server().model_config(name, version);
  drop(h);
  if (!config)
    throw_if_error(config.error());
  return runtime::model_config::to_json(**config);
}

std::string py_server::model_statistics(const std::string& name, int64_t version) {
  auto h = host();
  auto stats = h->server().model_statistics(name, version);
  drop(h);
  if (!stats)
    throw_if_error(stats.error());
  return runtime::statistics::statistics_json(*stats);
}

py::list py_server::repository_index(bool ready_only) {
  auto index = blocking([&](actors::server& s) { return s.repository_index(ready_only); });
  if (!index)
    throw_if_error(index.error());
  py::list out;
  for (const auto& e : *index) {
    py::object state = py::none();
    if (e.state != runtime::model_state::unknown)
      state = py::str(std::string{runtime::model_state_name(e.state)});
    out.append(py::make_tuple(e.name, e.version, state, e.reason));
  }
  return out;
}

std::string py_server::metrics() {
  auto h = host();
  auto out = h->server().metrics_text();
  drop(h);
  return out;
}

void py_server::load(const std::string& name, std::optional<std::string> config,
                     std::vector<std::pair<std::string, py::bytes>> files) {
  actors::load_parameters params;
  params.config_json = std::move(config);
  for (auto& [path, data] : files)
    params.files.emplace_back(path, static_cast<std::string>(data));
  auto st = blocking([&](actors::server& s) { return s.load(name, std::move(params)); });
  throw_if_error(st);
}

void py_server::unload(const std::string& name, bool unload_dependents) {
  auto st = blocking([&](actors::server& s) { return s.unload(name, unload_dependents); });
  throw_if_error(st);
}

void py_server::poll_repository() {
  auto st = blocking([](actors::server& s) { return s.poll_repository(); });
  throw_if_error(st);
}

void py_server::register_model_repository(
  const std::string& path, const std::map<std::string, std::string>& name_mapping) {
  auto st = blocking(
    [&](actors::server& s) { return s.register_model_repository(path, name_mapping); });
  throw_if_error(st);
}

void py_server::unregister_model_repository(const std::string& path) {
  auto st = blocking([&](actors::server& s) { return s.unregister_model_repository(path); });
  throw_if_error(st);
}

submitted_request py_server::infer(const request_fields& fields, py::object on_response) {
  run_deferred();
  auto h = host();
  // Upstream creates its request synchronously, so an unknown model fails at
  // call time; the table lookup gives the same answer without a round trip,
  // and the version it finds goes with the request (resolved once).
  auto model = h->server().resolve(fields.model_name, fields.model_version);
  if (!model) {
    drop(h);
    throw_if_error(model.error());
  }
  runtime::inference_request request;
  try {
    request = build_request(fields);
  } catch (...) {
    drop(h);
    throw;
  }
  py_ref callable;
  if (!on_response.is_none())
    callable = py_ref::borrow(on_response.ptr());
  auto queue = std::make_shared<response_queue>(std::move(callable));
  // A small request to an idle instance of a C++ model runs on this thread;
  // a Python model's runs on its instance's worker (actors/adapters/inline_submit.hpp).
  auto push = [queue](runtime::inference_response&& r) { queue->push(std::move(r)); };
  // Without the GIL: a C++ model run here logs and answers as on any Conch
  // thread (rule 1 and 3 of gil.hpp), and other Python threads go on. Still
  // without it, a short spin for the answer lets a Python model's worker
  // take the GIL at once rather than wait for this thread to give it back.
  actors::request_handle handle;
  {
    nogil released;
    auto policy = runtime::inprocess_may_run_here;
    policy.model = std::move(*model);
    handle = h->server().submit(std::move(request), std::move(push), std::move(policy));
    queue->spin_for_response();
  }
  queue->set_handle(std::move(handle));
  drop(h);
  return submitted_request{std::move(queue)};
}

} // namespace conch::python
