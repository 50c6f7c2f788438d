#include "conch/actors/adapters/adapter.hpp"

#include "conch/actors/supervision/guarded_actor.hpp"
#include "conch/runtime/validation/validate_request.hpp"

namespace conch::actors {

void route(const model_table& table, runtime::job_ptr& job) {
  auto& request = job->request();
  auto entry = table.resolve(request.model_name, request.model_version);
  if (!entry) {
    job->fail(entry.error(), runtime::failure_kind::other);
    return;
  }
  if (accept_for(**entry, job))
    caf::anon_send((*entry)->scheduler, std::move(job));
}

bool accept_for(const version_entry& version, runtime::job_ptr& job) {
  // Accepted on the direct lane already, which found no idle instance: its
  // inputs may be reshaped, and are checked.
  if (job->resolved_version() == version.version)
    return true;
  if (auto st = runtime::validation::validate_request(job->request(), *version.config); !st) {
    if (version.stats)
      job->set_model_observer(version.stats);
    job->fail(std::move(st), runtime::failure_kind::other);
    return false;
  }
  job->resolve(version.version);
  if (version.labels)
    job->set_labels(version.labels);
  if (const auto& reshapes = version.reshapes) {
    // The backend sees the inputs in their reshaped form and its outputs go
    // back in the configured dims.
    reshapes->to_backend(job->request().inputs);
    if (reshapes->has_outputs())
      job->set_reshapes(reshapes);
  }
  return true;
}

adapter::adapter(caf::actor_config& cfg, caf::actor pool)
  : adapter_actor::base(cfg), pool_(std::move(pool)) {}

adapter_actor::behavior_type adapter::make_behavior() {
  if (pool_) {
    monitor(pool_);
    pool_ = nullptr;
    set_down_handler([this](caf::down_msg&) { quit(caf::exit_reason::user_shutdown); });
  }
  return {
    [this](table_atom, model_table_ptr& table) -> caf::result<caf::ok_atom> {
      table_ = std::move(table);
      return caf::ok_atom_v;
    },
    [this](runtime::job_ptr& job) {
      run_guarded(job, "the adapter", [&] { route(*table_, job); });
    },
  };
}

} // namespace conch::actors
