#pragma once

#include <cstdint>
#include <string>

namespace conch::runtime::statistics {

/// The process-wide count of frontend transports restarted by their
/// supervisors after a failure, exposed in every server's metrics as
/// `conch_frontend_restarts_total{frontend="<name>"}`. Thread-safe.
class frontend_restarts {
 public:
  /// Counts one restart of a frontend named `frontend` ("HTTP", "metrics").
  static void note(const std::string& frontend) noexcept;

  /// Restarts of `frontend` since the process started.
  static int64_t count(const std::string& frontend) noexcept;
};

} // namespace conch::runtime::statistics
