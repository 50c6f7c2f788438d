#include "conch/actors/adapters/table_gateway.hpp"

#include "conch/actors/adapters/adapter.hpp"
#include "conch/actors/server/ask_async.hpp"
#include "conch/actors/adapters/front_door.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/repository/repository_interface.hpp"
#include "conch/actors/repository/repository_messages.hpp"

namespace conch::actors {

model_table_ptr table_gateway::table() const {
  auto flags = flags_.lock();
  return flags ? flags->table() : std::make_shared<model_table>();
}

void table_gateway::submit(runtime::job_ptr job) {
  auto flags = flags_.lock();
  if (!flags) {
    route(model_table{}, job); // the server is gone: answered as an unknown model
    return;
  }
  front_door{*flags}.enter(job, runtime::model_request);
}

runtime::result<std::shared_ptr<const inference::ModelConfig>>
table_gateway::config_of(const std::string& name, int64_t version) const {
  auto entry = table()->resolve(name, version);
  if (!entry)
    return entry.error();
  return (*entry)->config;
}

bool table_gateway::admitting() const {
  auto flags = flags_.lock();
  return flags && flags->accepting.load(std::memory_order_acquire);
}

void table_gateway::load(const std::string& name, runtime::load_parameters parameters,
                         status_callback done) {
  auto repository = caf::actor_cast<repository_actor>(repository_);
  if (!repository)
    return done(runtime::unavailable("server is stopping"));
  auto params = std::make_shared<const load_parameters>(std::move(parameters));
  ask_async<runtime::status>(repository->home_system(), repository, std::move(done), load_atom_v,
                             name, params);
}

void table_gateway::unload(const std::string& name, bool dependents, status_callback done) {
  auto repository = caf::actor_cast<repository_actor>(repository_);
  if (!repository)
    return done(runtime::unavailable("server is stopping"));
  ask_async<runtime::status>(repository->home_system(), repository, std::move(done),
                             unload_atom_v, name, dependents);
}

} // namespace conch::actors
