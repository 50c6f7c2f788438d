// The repository operations of conch::server that return at once: each
// spawns a short-lived actor that sends one request to the repository and
// hands the answer to the caller's callback, then ends. No thread waits.

#include <type_traits>

#include <caf/event_based_actor.hpp>

#include "conch/actors/messages.hpp"
#include "conch/actors/server.hpp"
#include "conch/actors/server/server_core.hpp"

namespace conch::actors {

using runtime::status;

void server::repository_index_async(bool ready_only, index_callback done) const {
  auto to_entries = [done = std::move(done)](auto answer) {
    using answer_type = decltype(answer);
    if constexpr (std::is_same_v<answer_type, status>)
      done(std::move(answer));
    else if (answer)
      done(*answer);
    else
      done(runtime::internal_error("the repository sent no index"));
  };
  ask_async<index_ptr>(*core_->sys, core_->repository, std::move(to_entries), index_atom_v,
                       ready_only);
}

void server::load_async(const std::string& name, load_parameters parameters,
                        status_callback done) {
  auto params = std::make_shared<const load_parameters>(std::move(parameters));
  ask_async<status>(*core_->sys, core_->repository, std::move(done), load_atom_v, name, params);
}

void server::unload_async(const std::string& name, bool unload_dependents, status_callback done) {
  ask_async<status>(*core_->sys, core_->repository, std::move(done), unload_atom_v, name,
                    unload_dependents);
}

void server::register_model_repository_async(
  const std::string& path, const std::map<std::string, std::string>& name_mapping,
  status_callback done) {
  auto root = std::make_shared<const runtime::repository::repository_root>(
    runtime::repository::repository_root{path, name_mapping});
  ask_async<status>(*core_->sys, core_->repository, std::move(done), register_atom_v,
                    repository_root_ptr{std::move(root)});
}

void server::unregister_model_repository_async(const std::string& path, status_callback done) {
  ask_async<status>(*core_->sys, core_->repository, std::move(done), unregister_atom_v, path);
}

std::shared_ptr<runtime::shm::region_registry> server::shared_memory() const {
  return core_->shared_memory;
}

} // namespace conch::actors
