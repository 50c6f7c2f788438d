#include "conch/runtime/backends/registry.hpp"

#include "conch/runtime/backends/add_sub/add_sub_backend.hpp"
#include "conch/runtime/backends/ensemble/ensemble_backend.hpp"
#include "conch/runtime/backends/identity/identity_backend.hpp"
#include "conch/runtime/backends/repeat/repeat_backend.hpp"

namespace conch::runtime::backends {

// One line per built-in backend; `add` replaces, so calling this twice is
// harmless.
void register_builtin_backends(registry& r) {
  r.add(identity::make_identity_backend());
  r.add(add_sub::make_add_sub_backend());
  r.add(repeat::make_repeat_backend());
  r.add(ensemble::make_ensemble_backend());
  r.add_platform("ensemble", "ensemble");
}

} // namespace conch::runtime::backends
