#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/logger.hpp>

#include "conch/actors/adapters/adapter_slots.hpp"
#include "conch/actors/server/gauge_sampler.hpp"
#include "conch/actors/frontends/inprocess_frontend.hpp"
#include "conch/actors/repository/model_table.hpp"
#include "conch/actors/server.hpp"
#include "conch/actors/server/ask_async.hpp"
#include "conch/actors/server/server_flags.hpp"
#include "conch/services/tracing/tracer.hpp"
#include "conch/runtime/statistics/connection_metrics.hpp"
#include "conch/runtime/statistics/metrics_registry.hpp"
#include "conch/runtime/shm/region_registry.hpp"

namespace conch::actors {

/// The state a server handle shares: the actor tree's entry points and the
/// objects the request path reads without asking an actor.
struct server::core {
  caf::actor_system* sys = nullptr;
  server_options options;
  std::shared_ptr<server_flags> flags = std::make_shared<server_flags>();
  std::shared_ptr<runtime::statistics::metrics_registry> metrics;
  std::shared_ptr<adapter_slots> slots;
  std::shared_ptr<inprocess_frontend> inprocess = std::make_shared<inprocess_frontend>();
  /// The in-process frontend's refusals, in the server's metrics.
  std::shared_ptr<runtime::statistics::connection_metrics> inprocess_metrics;
  std::shared_ptr<runtime::shm::region_registry> shared_memory
    = std::make_shared<runtime::shm::region_registry>();
  /// The trace settings and the sampling of requests.
  std::shared_ptr<services::tracer> traces;
  supervisor_actor supervisor;
  repository_actor repository;
  /// Keeps the process's memory pools installed while the server lives.
  std::shared_ptr<void> memory_pools;
  /// The CPU and GPU gauge sampler; null when there is nothing to sample.
  gauge_sampler_actor gauge_sampler;
  /// Set by the first stop().
  std::atomic<bool> stop_begun{false};

  /// Runs the stop protocol, or waits for the one another thread runs, until
  /// the supervisor has ended; every caller gets the protocol's outcome.
  runtime::status stop();

  /// The current model table (asks the repository).
  runtime::result<model_table_ptr> table() const;

  ~core();
};

} // namespace conch::actors
