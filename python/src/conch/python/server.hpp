#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "conch/actors/server_host.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/request.hpp"

namespace conch::python {

/// A Conch server as Python sees it (_conch.Server): it owns a server_host (a
/// server with an actor system of its own). Every method requires the GIL and
/// releases it while it waits. Once stopped, every method raises
/// InvalidArgumentError("Server not started").
class py_server {
 public:
  /// Starts a server (GIL released while models load).
  static std::unique_ptr<py_server> start(actors::server_options options);

  ~py_server();

  /// Stops the server and its actor system (GIL released), raising the
  /// stop's error. Called again while that stop runs (another thread), it
  /// waits for it; called after, it returns at once; neither raises.
  void stop();

  /// The running host, shared with a frontend that must keep it alive;
  /// raises InvalidArgumentError("Server not started") once stopped.
  std::shared_ptr<actors::server_host> shared_host() const { return host(); }

  // -- queries -----------------------------------------------------------------

  /// True until the server stopped.
  bool live();
  /// True while the server admits requests and (strict readiness) every model is ready.
  bool ready();
  /// {"name", "version", "extensions"}.
  pybind11::dict metadata();
  /// True when the version (-1: any) is READY.
  bool model_ready(const std::string& name, int64_t version);
  /// {"name", "versions", "platform", "inputs", "outputs"}; raises NotFoundError.
  pybind11::dict model_metadata(const std::string& name, int64_t version);
  /// The model configuration as protobuf JSON; raises NotFoundError.
  std::string model_config(const std::string& name, int64_t version);
  /// The statistics extension's JSON body for READY versions.
  std::string model_statistics(const std::string& name, int64_t version);
  /// (name, version, state or None, reason) per index row (GIL released).
  pybind11::list repository_index(bool ready_only);
  /// The Prometheus text exposition.
  std::string metrics();

  // -- tracing (server_tracing.cpp) -------------------------------------------------

  /// The global trace settings (model empty) or a model's, as the trace
  /// extension reports them: [(key, [values])]. A model must be ready.
  pybind11::list trace_settings(const std::string& model);
  /// Applies a change as the trace extension takes it: {key: str, [str] or
  /// None}; returns the settings that result, as trace_settings does.
  pybind11::list update_trace_settings(const std::string& model, const pybind11::dict& settings);
  /// Waits until every finished trace is written (GIL released).
  void flush_traces();

  // -- repository ----------------------------------------------------------------

  /// Loads a model, with an optional JSON configuration and files (GIL released).
  void load(const std::string& name, std::optional<std::string> config,
            std::vector<std::pair<std::string, pybind11::bytes>> files);
  /// Unloads every version of a model (GIL released).
  void unload(const std::string& name, bool unload_dependents);
  /// Applies repository changes (POLL mode; GIL released).
  void poll_repository();
  /// Adds a model repository with a name mapping, directory -> model name
  /// (EXPLICIT mode; GIL released).
  void register_model_repository(const std::string& path,
                                 const std::map<std::string, std::string>& name_mapping);
  /// Removes a registered model repository (EXPLICIT mode; GIL released).
  void unregister_model_repository(const std::string& path);

  // -- inference -----------------------------------------------------------------

  /// Submits a request; never blocks. Raises NotFoundError at once for an
  /// unknown model and InvalidArgumentError for inputs or parameters Conch
  /// cannot take. `on_response`, when not None, receives every response on a
  /// Conch thread (see response_queue).
  submitted_request infer(const request_fields& fields, pybind11::object on_response);

 private:
  using host_ptr = std::shared_ptr<actors::server_host>;

  /// A reference to the running host; raises when stopped. Callers drop it
  /// with `drop`, so the host is never destroyed while holding the GIL.
  host_ptr host() const;
  static void drop(host_ptr& h);

  /// Runs `fn(server)` with the GIL released and returns its result.
  template <class F>
  auto blocking(F&& fn) {
    auto h = host();
    nogil released;
    auto out = fn(h->server());
    h.reset();
    return out;
  }

  host_ptr host_;
  /// The host while the first stop() runs: a stop racing with it waits on it.
  std::weak_ptr<actors::server_host> stopping_;
};

} // namespace conch::python
