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
  if (const auto* accepted = job->accepted_config()) {
    // Accepted on the direct lane already, which found no idle instance:
    // checked against this very configuration, its inputs reshaped for it.
    // (The versions of one load share it: the version may be another one
    // of them, when the lane resolved the latest from a newer snapshot.)
    if (accepted == version.config.get()) {
      if (job->resolved_version() != version.version)
        job->accept(version.version, version.config, version.reshapes);
      return true;
    }
    // Accepted against another configuration of this version number, which
    // a reload replaced meanwhile: its inputs get the client's shapes back
    // and are checked against the one that serves now.
    if (const auto& applied = job->accepted_reshapes())
      applied->inputs_to_client(job->request().inputs);
    job->set_labels(nullptr);
    job->set_reshapes(nullptr);
  }
  if (auto st = runtime::validation::validate_request(job->request(), *version.config); !st) {
    if (version.stats)
      job->set_model_observer(version.stats);
    job->fail(std::move(st), runtime::failure_kind::other);
    return false;
  }
  job->accept(version.version, version.config, version.reshapes);
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
