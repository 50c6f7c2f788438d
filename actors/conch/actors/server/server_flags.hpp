#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "conch/actors/repository/model_table.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {

/// What the actors publish for the public API to read from any thread
/// without asking an actor: health flags and the current model table.
struct server_flags {
  /// The server answers health/live: from its start until its stop ends,
  /// or until a core actor ends (server_supervisor::core_failed).
  std::atomic<bool> live{false};
  /// New inference requests are admitted (false from the start of stop()).
  std::atomic<bool> accepting{false};
  /// Requests that network frontends received are admitted: until those
  /// frontends have drained at a stop. Each stops taking requests itself
  /// (closes its listener, answers 503, refuses new gRPC calls on the wire,
  /// where a load balancer can retry them), so a request that reached one
  /// before it closed is served rather than refused.
  std::atomic<bool> frontends_open{false};
  /// Every model that should be loaded is READY (see strict_readiness).
  std::atomic<bool> models_ready{false};

  /// Replaces the published model table. Called by the repository.
  void publish(model_table_ptr table) { std::atomic_store(&table_, std::move(table)); }

  /// Records how the stop ended, once; the supervisor calls it before it
  /// answers and ends, so a stop that finds it gone can read the outcome.
  void set_stop_outcome(const runtime::status& st) {
    std::lock_guard<std::mutex> guard{stop_mu_};
    if (!stop_outcome_)
      stop_outcome_ = st;
  }

  /// How the stop ended; nullopt until it has.
  std::optional<runtime::status> stop_outcome() const {
    std::lock_guard<std::mutex> guard{stop_mu_};
    return stop_outcome_;
  }

  /// The last published model table (an empty one before the first).
  model_table_ptr table() const {
    auto t = std::atomic_load(&table_);
    return t ? t : std::make_shared<model_table>();
  }

 private:
  model_table_ptr table_;
  mutable std::mutex stop_mu_;
  std::optional<runtime::status> stop_outcome_;  // guarded by stop_mu_
};

} // namespace conch::actors
