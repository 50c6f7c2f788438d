#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "conch/actors/frontend_health.hpp"
#include "conch/actors/frontend_transport.hpp"
#include "conch/actors/repository/repository_messages.hpp"
#include "conch/actors/server_options.hpp"
#include "conch/actors/supervision/supervisor_interface.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/model_config/model_metadata.hpp"
#include "conch/runtime/model_config/resolved_model.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/server_metadata.hpp"
#include "conch/runtime/submit_policy.hpp"
#include "conch/runtime/statistics/custom_metric_family.hpp"
#include "conch/runtime/statistics/statistics_snapshot.hpp"
#include "conch/runtime/shm/region_registry.hpp"
#include "model_config.pb.h"

namespace prometheus {
class Collectable;
} // namespace prometheus

namespace conch::actors {

using runtime::model_metadata;
using runtime::server_metadata;
using runtime::tensor_metadata;

/// A request in flight, as returned by server::submit. Cancelling it answers a
/// queued request at once with CANCELLED and asks a running one to stop.
/// Thread-safe; may outlive the server.
class request_handle {
 public:
  request_handle() = default;
  explicit request_handle(runtime::job_ptr job) : job_(std::move(job)) {}

  /// Cancels the request (no-op once it completed).
  void cancel() const noexcept {
    if (job_)
      job_->cancel();
  }

  /// True once the final response was delivered.
  bool completed() const noexcept { return !job_ || job_->completed(); }

 private:
  runtime::job_ptr job_;
};

/// A Conch server running in an application's CAF actor system. A cheap,
/// copyable handle: copies share the server, which stops when stop() is
/// called or the last copy goes. Every method is thread-safe. The blocking
/// ones (start, stop, load, unload, poll and the queries) must not be called
/// from a thread of the actor system's scheduler; infer never blocks.
class server {
 public:
  // -- lifecycle -----------------------------------------------------------------

  /// Starts a server in `sys`: builds its actor tree and loads models as the
  /// control mode says. With exit_on_error, fails (and leaves nothing
  /// running) when any model fails to load, naming each one.
  static runtime::result<server> start(caf::actor_system& sys, server_options options);

  /// Runs the stop protocol: not ready at once, then frontends stop, then
  /// adapters, then models drain. Returns InternalError("Exit timeout
  /// expired. Exiting immediately.") when exit_timeout passed first: then
  /// what did not finish was answered UNAVAILABLE and model threads that did
  /// not return were abandoned, so it returns within exit_timeout plus about
  /// a second whatever the models do. Idempotent and thread-safe: a call
  /// while another thread stops the server waits for that stop, a call
  /// after it returns at once, and both get the same outcome.
  runtime::status stop();

  /// The supervisor at the root of the server's tree, to link or monitor
  /// from the application's own supervision tree. It ends when the server
  /// stopped.
  supervisor_actor handle() const;

  // -- health and metadata ---------------------------------------------------------

  /// True from a successful start until the stop ends, unless a core actor
  /// of the tree (the repository, the adapter pool) ended meanwhile.
  bool live() const;
  /// True while live() and admitting requests, when every model that should
  /// be loaded is READY (or strict_readiness is off).
  bool ready() const;
  server_metadata metadata() const;
  const server_options& options() const;

  // -- models ------------------------------------------------------------------------

  /// True when the version (-1: any version) is READY. The model's own
  /// readiness checks (python's is_ready()) are not consulted: see
  /// check_model_ready.
  bool model_ready(const std::string& name, int64_t version = -1) const;
  /// Whether the version (-1: the highest READY one) is ready as Triton's
  /// readiness queries answer it: READY, and each of its instances that has
  /// its own readiness check (python's is_ready(), bounded at 5 s) says so.
  /// `done` hears it exactly once, from any thread, possibly before this
  /// returns; never blocks.
  void check_model_ready(const std::string& name, int64_t version,
                         std::function<void(bool ready)> done) const;
  /// True when the repository knows the model (and the version, unless -1)
  /// in whatever state: an unknown one is NOT_FOUND, a known one that is
  /// not READY merely unavailable.
  bool model_known(const std::string& name, int64_t version = -1) const;
  /// The metadata of a READY version: the requested one (its number alone in
  /// `versions`), or, for -1, the highest (listing every READY version).
  runtime::result<runtime::model_metadata> model_metadata(const std::string& name,
                                                          int64_t version = -1) const;
  runtime::result<std::shared_ptr<const inference::ModelConfig>>
  model_config(const std::string& name, int64_t version = -1) const;
  /// The READY version a request for (`name`, `version`) goes to (-1: the
  /// highest), with its config. A caller that decodes a request against it
  /// puts it in the submit policy, so the request is resolved once.
  runtime::result<runtime::resolved_model_ptr> resolve(const std::string& name,
                                                       int64_t version = -1) const;
  /// Statistics of READY versions: all models when `name` is empty, all
  /// versions of `name` when `version` is -1.
  runtime::result<std::vector<runtime::statistics::statistics_snapshot>>
  model_statistics(const std::string& name = "", int64_t version = -1) const;

  // -- repository -------------------------------------------------------------------

  runtime::result<std::vector<index_entry>> repository_index(bool ready_only = false) const;
  runtime::status load(const std::string& name, load_parameters parameters = {});
  runtime::status unload(const std::string& name, bool unload_dependents = false);
  runtime::status poll_repository();

  // -- repository registration (server_repositories.cpp) -------------------------------

  /// Adds the model repository at `path` (EXPLICIT mode only; UNSUPPORTED
  /// otherwise). `name_mapping` maps a model directory of it to the model
  /// name it is known by; unmapped directories keep their own names. The new
  /// models show in the index at once and load on request. INVALID_ARG for
  /// a path that is not a directory or a bad mapping, ALREADY_EXISTS for a
  /// path already registered or a mapped name another repository uses.
  runtime::status register_model_repository(
    const std::string& path, const std::map<std::string, std::string>& name_mapping = {});

  /// Removes the model repository at `path` and its mapping (EXPLICIT mode
  /// only). Models loaded from it keep serving until unloaded. INVALID_ARG
  /// when no repository is registered at `path`.
  runtime::status unregister_model_repository(const std::string& path);

  // -- repository, without blocking ----------------------------------------------------

  /// Receives the index from repository_index_async.
  using index_callback = std::function<void(runtime::result<std::vector<index_entry>>)>;
  /// Receives the outcome of load_async or unload_async.
  using status_callback = std::function<void(runtime::status)>;

  /// As repository_index, but returns at once; `done` runs once, on a thread
  /// of the actor system. May be called from any thread, the scheduler's too.
  void repository_index_async(bool ready_only, index_callback done) const;

  /// As load, but returns at once; `done` runs once, on a thread of the
  /// actor system, when the model is READY or failed.
  void load_async(const std::string& name, load_parameters parameters, status_callback done);

  /// As unload, but returns at once; `done` runs once, on a thread of the
  /// actor system.
  void unload_async(const std::string& name, bool unload_dependents, status_callback done);

  /// As register_model_repository, but returns at once; `done` runs once, on
  /// a thread of the actor system.
  void register_model_repository_async(const std::string& path,
                                       const std::map<std::string, std::string>& name_mapping,
                                       status_callback done);

  /// As unregister_model_repository, but returns at once; `done` runs once,
  /// on a thread of the actor system.
  void unregister_model_repository_async(const std::string& path, status_callback done);

  // -- inference ----------------------------------------------------------------------

  /// Submits a request: the one way into execution, whoever submits it.
  /// `on_response` receives every response (several for a decoupled model),
  /// the last one marked final; it is called from Conch's threads and must
  /// not block. Errors (unknown model, invalid inputs, server stopping,
  /// too many in flight) arrive the same way, as one final response.
  /// `policy` says who submits (how it is admitted) and whether it may run
  /// on the calling thread, in which case `on_response` may be called before
  /// this returns (runtime/submit_policy.hpp). The server samples the
  /// request's trace here, by its model's trace settings and `policy.trace`,
  /// unless the request brings one; its final response carries the trace
  /// for the frontend's send stamps.
  request_handle submit(runtime::inference_request request, runtime::response_callback on_response,
                        runtime::submit_policy policy = {});

  // -- tracing (server_tracing.cpp) ---------------------------------------------------

  /// The global trace settings (model empty), or a model's.
  runtime::tracing::trace_settings trace_settings(const std::string& model = "") const;

  /// Changes the global trace settings (model empty) or a model's, with the
  /// trace extension's rules; returns the settings that result.
  runtime::result<runtime::tracing::trace_settings>
  update_trace_settings(const std::string& model,
                        const runtime::tracing::trace_settings_update& update);

  /// Waits until every trace finished so far is in its file.
  void flush_traces() const;

  // -- frontends and metrics ----------------------------------------------------------

  /// Adds a frontend to the server's tree and starts it. The server stops it
  /// first when it stops. Returns the frontend's supervisor. With `restart`,
  /// a transport that fails while serving is replaced by a fresh one from
  /// it, within its budget.
  runtime::result<frontend_actor> add_frontend(frontend_transport_ptr transport,
                                               frontend_restart_ptr restart = nullptr);

  /// Stops one frontend (step 2 of the stop protocol for it alone).
  runtime::status stop_frontend(const frontend_actor& frontend);

  /// The Prometheus text exposition of the server's metric families.
  std::string metrics_text() const;

  /// Adds series that `source` renders at each scrape, for as long as it
  /// lives (a frontend's connection metrics).
  void add_metric_source(std::weak_ptr<const prometheus::Collectable> source) const;

  /// A custom counter or gauge family in the server's registry; it appears in
  /// metrics_text() beside the per-model families until its last handle goes
  /// (see runtime::statistics::custom_metric_family::make for the errors).
  runtime::result<std::shared_ptr<runtime::statistics::custom_metric_family>>
  make_metric_family(runtime::statistics::metric_kind kind, const std::string& name,
                     const std::string& description) const;

  /// The shared-memory regions clients registered with any of the server's
  /// frontends: one registry per server, so a region registered over HTTP
  /// serves gRPC requests too. The regions outlive a frontend's restart.
  /// Never null; thread-safe.
  std::shared_ptr<runtime::shm::region_registry> shared_memory() const;

  struct core;

 private:
  explicit server(std::shared_ptr<core> c) : core_(std::move(c)) {}
  /// Sets `request.trace` when its model's trace settings sample it.
  void open_trace(runtime::inference_request& request, const runtime::trace_origin& origin) const;
  std::shared_ptr<core> core_;
};

} // namespace conch::actors

namespace conch {
using actors::server;
using actors::server_options;
} // namespace conch
