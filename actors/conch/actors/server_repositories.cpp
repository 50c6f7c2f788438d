// Registering and unregistering model repositories through conch::server.

#include "conch/actors/messages.hpp"
#include "conch/actors/server/server_core.hpp"

namespace conch::actors {

using runtime::status;

status server::register_model_repository(const std::string& path,
                                          const std::map<std::string, std::string>& name_mapping) {
  auto root = std::make_shared<const runtime::repository::repository_root>(
    runtime::repository::repository_root{path, name_mapping});
  return ask_status(*core_->sys, core_->repository, register_atom_v,
                    repository_root_ptr{std::move(root)});
}

status server::unregister_model_repository(const std::string& path) {
  return ask_status(*core_->sys, core_->repository, unregister_atom_v, path);
}

} // namespace conch::actors
