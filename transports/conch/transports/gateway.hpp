#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/inference_response.hpp"
#include "conch/runtime/logging/log_settings.hpp"
#include "conch/runtime/model_config/model_metadata.hpp"
#include "conch/runtime/model_config/resolved_model.hpp"
#include "conch/runtime/repository/load_parameters.hpp"
#include "conch/runtime/repository/model_state.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/server_metadata.hpp"
#include "conch/runtime/submit_policy.hpp"
#include "conch/runtime/statistics/statistics_snapshot.hpp"
#include "conch/runtime/tracing/trace_settings.hpp"
#include "conch/runtime/shm/region_registry.hpp"
#include "model_config.pb.h"

namespace conch::transports {

/// The logging settings of the logging extension: the process-global
/// logger's own settings type.
using log_settings = runtime::logging::log_settings;

/// A change of the logging settings: only the fields that hold a value change.
using log_settings_update = runtime::logging::log_settings_update;

/// Cancels a request in flight; harmless once it completed. Thread-safe.
using cancel_fn = std::function<void()>;

/// Receives the outcome of an asynchronous operation, once, on a thread of
/// the server (never the caller's loop thread unless documented otherwise).
template <class T>
using completion = std::function<void(T)>;

/// The only door from a network transport into the server: the operations
/// the protocol handlers need, in plain types. Nothing here blocks. The
/// lookups answer at once from state the server publishes; what needs the
/// server's actors answers through a callback. Every method is thread-safe.
class gateway {
 public:
  virtual ~gateway() = default;

  // -- health and metadata ---------------------------------------------------

  /// True while the server runs.
  virtual bool live() const = 0;

  /// True while the server admits requests and its models are ready.
  virtual bool ready() const = 0;

  /// The server's name, version and implemented extensions.
  virtual runtime::server_metadata server_metadata() const = 0;

  // -- models ----------------------------------------------------------------

  /// Answers a readiness query: ok when the version (-1: any) is READY and
  /// its model's own readiness checks say so; NOT_FOUND for an unknown
  /// model or version; another error when the version exists but is not
  /// ready. `done` hears it once, from any thread, maybe before this returns
  /// (a model's own check may take up to seconds); never blocks.
  virtual void model_ready(const std::string& name, int64_t version,
                           completion<runtime::status> done) const = 0;

  /// The metadata of a READY version (-1: the highest).
  virtual runtime::result<runtime::model_metadata> model_metadata(const std::string& name,
                                                     int64_t version) const = 0;

  /// The normalised configuration of a READY version (-1: the highest).
  virtual runtime::result<std::shared_ptr<const inference::ModelConfig>>
  model_config(const std::string& name, int64_t version) const = 0;

  /// The READY version a request for (`name`, `version`) goes to (-1: the
  /// highest), with its config; the errors of model_config. An inference
  /// route decodes the request against it and passes it on in the submit
  /// policy (runtime::submit_policy::model), so the request is resolved once.
  virtual runtime::result<runtime::resolved_model_ptr> resolve(const std::string& name,
                                                               int64_t version) const = 0;

  /// Statistics of READY versions: every model when `name` is empty, every
  /// version of `name` when `version` is -1.
  virtual runtime::result<std::vector<runtime::statistics::statistics_snapshot>>
  model_statistics(const std::string& name, int64_t version) const = 0;

  // -- repository ------------------------------------------------------------

  /// Lists the repository's models (only READY versions with `ready_only`).
  virtual void repository_index(
    bool ready_only, completion<runtime::result<std::vector<runtime::index_entry>>> done) = 0;

  /// Loads or reloads model `name`; `done` gets the outcome once it is READY
  /// or failed.
  virtual void load(std::string name, runtime::load_parameters request,
                    completion<runtime::status> done) = 0;

  /// Unloads model `name` (and the models only it needed, when asked).
  virtual void unload(std::string name, bool unload_dependents,
                      completion<runtime::status> done) = 0;

  /// Adds the model repository at `path`, its directories named by
  /// `name_mapping` (directory -> model name) where given; EXPLICIT mode
  /// only. ALREADY_EXISTS for a path already registered or a conflicting
  /// name, INVALID_ARG for a path that is not a directory.
  virtual void register_repository(std::string path,
                                   std::map<std::string, std::string> name_mapping,
                                   completion<runtime::status> done) = 0;

  /// Removes the model repository at `path`; INVALID_ARG when none is
  /// registered there.
  virtual void unregister_repository(std::string path, completion<runtime::status> done) = 0;

  // -- metrics ---------------------------------------------------------------

  /// The server's metrics in the Prometheus text format.
  virtual std::string metrics_text() const = 0;

  // -- logging ---------------------------------------------------------------

  /// The current logging settings.
  virtual log_settings logging() const = 0;

  /// Applies `update` and returns the settings that result; INVALID_ARG for
  /// a value out of range, nothing changed then.
  virtual runtime::result<log_settings> update_logging(const log_settings_update& update) = 0;

  // -- tracing ---------------------------------------------------------------

  /// The global trace settings (model empty), or a model's; NOT_FOUND for a
  /// model the server does not know.
  virtual runtime::result<runtime::tracing::trace_settings>
  trace_settings(const std::string& model) const = 0;

  /// Changes the global trace settings (model empty) or a model's; returns
  /// the settings that result.
  virtual runtime::result<runtime::tracing::trace_settings>
  update_trace_settings(const std::string& model,
                        const runtime::tracing::trace_settings_update& update) = 0;

  // -- shared memory ---------------------------------------------------------

  /// The shared-memory regions clients registered: one registry per server
  /// for all its frontends, so a region registered over one protocol serves
  /// requests of the other. Never null.
  virtual std::shared_ptr<runtime::shm::region_registry> shared_memory() const = 0;

  // -- inference -------------------------------------------------------------

  /// Submits a request through the server's one submit path (see
  /// server::submit). `on_response` receives every response, the last one
  /// marked final, from the server's threads (or, with
  /// placement::may_run_here, on the calling thread before this returns);
  /// errors arrive the same way. Returns what cancels the request.
  virtual cancel_fn submit(runtime::inference_request request,
                           runtime::response_callback on_response,
                           runtime::submit_policy policy) = 0;
};

using gateway_ptr = std::shared_ptr<gateway>;

} // namespace conch::transports
