// Registering and unregistering model repositories through conch::server.

#include <caf/scoped_actor.hpp>

#include "conch/actors/messages.hpp"
#include "conch/actors/server_core.hpp"

namespace conch::actors {

using runtime::status;

namespace {

// Sends (xs...) to the repository and waits for its status.
template <class... Ts>
status ask_repository(const server::core& c, Ts&&... xs) {
  if (!c.repository)
    return runtime::unavailable("server is not running");
  caller_thread_guard guard;
  caf::scoped_actor self{*c.sys};
  status out;
  self->request(c.repository, caf::infinite, std::forward<Ts>(xs)...)
    .receive([&](status& st) { out = std::move(st); },
             [&](caf::error& err) {
               out = runtime::unavailable("server is not running: " + to_string(err));
             });
  return out;
}

} // namespace

status server::register_model_repository(const std::string& path,
                                          const std::map<std::string, std::string>& name_mapping) {
  auto root = std::make_shared<const runtime::repository::repository_root>(
    runtime::repository::repository_root{path, name_mapping});
  return ask_repository(*core_, register_atom_v, repository_root_ptr{std::move(root)});
}

status server::unregister_model_repository(const std::string& path) {
  return ask_repository(*core_, unregister_atom_v, path);
}

} // namespace conch::actors
