#include "conch/actors/adapter.hpp"

#include "conch/runtime/validation/validate_request.hpp"

namespace conch::actors {

namespace {

struct adapter_state {
  model_table_ptr table = std::make_shared<model_table>();
};

void route(const model_table& table, runtime::job_ptr& job) {
  auto& request = job->request();
  auto entry = table.resolve(request.model_name, request.model_version);
  if (!entry) {
    job->fail(entry.error(), runtime::failure_kind::other);
    return;
  }
  const auto& version = **entry;
  if (auto st = runtime::validation::validate_request(request, *version.config); !st) {
    if (version.stats)
      job->set_model_observer(version.stats);
    job->fail(std::move(st), runtime::failure_kind::other);
    return;
  }
  job->resolve(version.version);
  if (version.labels)
    job->set_labels(version.labels);
  caf::anon_send(version.scheduler, std::move(job));
}

} // namespace

caf::behavior adapter(caf::event_based_actor* self) {
  auto state = std::make_shared<adapter_state>();
  return {
    [state](table_atom, model_table_ptr& table) -> caf::result<caf::ok_atom> {
      state->table = std::move(table);
      return caf::ok_atom_v;
    },
    [state](runtime::job_ptr& job) { route(*state->table, job); },
  };
}

} // namespace conch::actors
