#include "conch/transports/grpc/release_locks.hpp"

#include <absl/synchronization/mutex.h>

namespace conch::transports::grpc {

void use_release_mode_locks() noexcept {
  static const bool done = [] {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
    return true;
  }();
  (void)done;
}

} // namespace conch::transports::grpc
