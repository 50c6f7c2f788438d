#pragma once

#include <memory>
#include <vector>

#include <caf/response_promise.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "conch/actors/adapters/adapter_pool.hpp"
#include "conch/actors/adapters/adapter_slots.hpp"
#include "conch/actors/frontend_health.hpp"
#include "conch/actors/frontend_transport.hpp"
#include "conch/actors/supervision/guarded_actor.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/server/server_flags.hpp"
#include "conch/actors/server_options.hpp"
#include "conch/actors/supervision/supervisor_interface.hpp"
#include "conch/runtime/statistics/metrics_registry.hpp"

namespace conch::actors {

/// What a server supervisor is built from.
struct supervisor_spec {
  server_options options;
  std::shared_ptr<server_flags> flags;
  std::shared_ptr<runtime::statistics::metrics_registry> metrics;
  std::shared_ptr<adapter_slots> slots;
  /// Off in deterministic tests: every actor then runs on the test scheduler.
  bool allow_detached = true;
};

/// The root of one server's tree: the frontend supervisors, the adapter pool
/// and the repository (which owns the model schedulers). `init_atom` loads
/// the repository; `frontend_atom` adds and starts a frontend; `stop_atom`
/// runs the stop protocol — frontends first, then adapters, then models —
/// and answers "Exit timeout expired. Exiting immediately." when the exit
/// timeout passes first, after abandoning what was left. Stops that race
/// all wait for the one protocol and hear its outcome, which it also
/// records in the server's flags before it ends.
///
/// The adapter pool and the repository are the server's core: should either
/// end while the server runs (a handler's exception does not end the
/// repository, so only a bug, a kill or exhausted memory can), the server is
/// degraded for good, and the supervisor says so in the flags: not live,
/// not ready, admitting nothing, so that every health check (HTTP, gRPC,
/// in-process) reports it and an orchestrator restarts the process. A stop
/// still runs its protocol over what is left. Its interface is
/// supervisor_actor.
class server_supervisor : public guarded<supervisor_actor::base> {
 public:
  server_supervisor(caf::actor_config& cfg, supervisor_spec spec);

  behavior_type make_behavior() override;
  void on_exit() override;

 private:
  enum class phase { running, frontends, adapters, models, done };

  caf::result<runtime::status, frontend_actor> add_frontend(frontend_transport_ptr transport,
                                                        frontend_restart_ptr restart);
  caf::result<runtime::status> begin_stop();
  void stop_frontends();
  void stop_adapters();
  void stop_models();
  void finish();
  void on_deadline();
  void kill_children();
  void on_down(const caf::down_msg& msg);
  void core_failed(const char* which, const caf::error& reason);

  supervisor_spec spec_;
  adapter_pool_actor pool_;
  repository_actor repository_;
  std::vector<frontend_actor> frontends_;
  /// Every caller of stop_atom, answered together.
  std::vector<caf::response_promise> stop_rps_;
  phase phase_ = phase::running;
  size_t pending_ = 0;
  bool timed_out_ = false;
};

} // namespace conch::actors
