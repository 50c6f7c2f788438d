#pragma once

#include <caf/actor.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "conch/actors/messages.hpp"
#include "conch/actors/repository/model_table.hpp"

namespace conch::actors {

/// What a server adapter (adapter) takes.
using adapter_actor = caf::typed_actor<
  // A new snapshot of the model table, acknowledged once it is in use.
  caf::replies_to<table_atom, model_table_ptr>::with<caf::ok_atom>,
  // A job to route (route()): answered here or sent to its scheduler.
  caf::reacts_to<runtime::job_ptr>>;

/// A server adapter: resolves a job's model version from its own snapshot of
/// the model table, validates the request against that version's
/// configuration, and forwards it to the version's scheduler. Invalid
/// requests are answered here. Snapshots arrive with `table_atom` and are
/// acknowledged, so a load returns only once every adapter sees the model.
/// Ends when `pool` (its adapter pool) ends, however it ended: a pool that
/// was killed or died leaves no adapter behind.
class adapter : public adapter_actor::base {
 public:
  adapter(caf::actor_config& cfg, caf::actor pool);

  behavior_type make_behavior() override;
  /// Lets go of its snapshot as it ends (the slots keep the handle).
  void on_exit() override { table_.reset(); }

 private:
  /// Until it is monitored: a strong handle kept would be a cycle.
  caf::actor pool_;
  model_table_ptr table_ = std::make_shared<model_table>();
};

/// What an adapter does to a job once its version is resolved: validates the
/// request against the version's configuration and marks the job as served
/// by it. False when the request is invalid; the job is answered then.
bool accept_for(const version_entry& version, runtime::job_ptr& job);

/// What an adapter does with a job: resolves its version in `table`,
/// accepts it (accept_for) and sends it to the version's scheduler; a job
/// that does not resolve or is invalid is answered here.
void route(const model_table& table, runtime::job_ptr& job);

} // namespace conch::actors
