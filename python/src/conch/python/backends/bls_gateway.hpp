#pragma once

// _conch.BlsGateway: the requests a Python model sends to the server's models
// itself (business logic scripting, pb_utils.InferenceRequest.exec). They take
// the way an ensemble's steps take: resolved against the published model
// table, validated, run on a model's direct lane or queued at its scheduler,
// counted in its statistics and cancellable, never a private shortcut.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "conch/python/backends/backend_request.hpp"
#include "conch/python/request.hpp"
#include "conch/runtime/backends/backend.hpp"

namespace conch::python::backends {

/// The trace of a request a Python model runs (pb_utils.InferenceTrace's
/// native side): passed to a BLS request, it makes that request a child
/// trace of it.
struct trace_handle {
  runtime::request_trace_ptr trace;

  /// The W3C trace context the request's children continue, as Triton
  /// hands it to backends: {"traceparent": "00-<trace id>-<span id>-<flags>"}
  /// plus "tracestate" when the request came with one.
  std::string context_json() const;
};

/// The server's models as one Python model version calls them. Thread-safe.
class bls_gateway {
 public:
  bls_gateway(std::shared_ptr<runtime::backends::model_gateway> models,
              std::shared_ptr<const model_facts> caller)
    : models_(std::move(models)), caller_(std::move(caller)) {}

  /// Submits a request and returns its responses' queue (pull mode without
  /// `on_response`, push mode with it, as _conch.Server.infer). `outputs`
  /// names the outputs wanted (all when empty); without `decoupled` a
  /// decoupled model is refused (its responses need an iterator). Raises at
  /// once as a request
  /// from a client would be answered: NotFoundError or UnavailableError for a
  /// model that cannot take it, InvalidArgumentError for inputs Conch cannot
  /// take, and UnavailableError once the server stops, unless the calling
  /// model still has requests of its own to finish (the stop drains those,
  /// BLS calls included). Requires the GIL; submits without it.
  /// `trace`, when set, is the calling request's: the request is traced as
  /// its child.
  submitted_request infer(const request_fields& fields, const std::vector<std::string>& outputs,
                          bool decoupled, pybind11::object on_response,
                          const trace_handle* trace = nullptr);

  /// Loads `name` as a load request would (optional JSON configuration and
  /// files, path to bytes) and waits with the GIL released until it is
  /// READY; raises the failure, and UnsupportedError for the calling model
  /// itself. pb_utils.load_model.
  void load(const std::string& name, const std::string& config_json,
            const std::vector<std::pair<std::string, std::string>>& files);

  /// Begins unloading `name` and returns, as Triton's does; a failure is
  /// logged. From then until the unload ends, `ready` says false for it, as
  /// Triton's is_model_ready does at once. pb_utils.unload_model.
  void unload(const std::string& name, bool unload_dependents);

  /// Whether `name` (version -1: any) would take a request now: false while
  /// an unload_model of it runs.
  bool ready(const std::string& name, int64_t version) const;

  /// Which server the calls go to (equal for the models of one server).
  uintptr_t server_id() const noexcept { return reinterpret_cast<uintptr_t>(models_.get()); }

  /// The name of the calling model.
  const std::string& caller() const noexcept { return caller_->name; }

 private:
  std::shared_ptr<runtime::backends::model_gateway> models_;
  std::shared_ptr<const model_facts> caller_;
};

/// Binds _conch.BlsGateway.
void bind_bls_gateway(pybind11::module_& m);

} // namespace conch::python::backends
