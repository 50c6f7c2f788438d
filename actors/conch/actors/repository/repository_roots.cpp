// Registering and unregistering model repositories:
// model_repository::register_root and unregister_root.

#include "conch/actors/repository/model_repository.hpp"
#include "conch/runtime/repository/registration.hpp"

namespace conch::actors {

using runtime::status;

status model_repository::register_root(const runtime::repository::repository_root& root) {
  if (options_.model_control_mode != control_mode::explicit_)
    return runtime::unsupported(
      "repository registration is not allowed if model control mode is not EXPLICIT");
  if (stopping_)
    return runtime::unavailable("server is stopping");
  if (auto st = runtime::repository::check_registration(roots_, root); !st)
    return st;
  // The index scans the roots on each request, so the new models show at
  // once; nothing loads until asked.
  roots_.push_back(root);
  return status::ok();
}

status model_repository::unregister_root(const std::string& path) {
  if (options_.model_control_mode != control_mode::explicit_)
    return runtime::unsupported(
      "repository unregistration is not allowed if model control mode is not EXPLICIT");
  if (stopping_)
    return runtime::unavailable("server is stopping");
  // Models loaded from the repository keep serving until unloaded; only
  // finding them again (index, load) stops.
  return runtime::repository::remove_root(roots_, path);
}

} // namespace conch::actors
