#pragma once

#include <chrono>
#include <functional>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/result.hpp"

namespace conch::runtime::backends::common {

/// The `execute_delay_ms` setting of a model: how long each execute waits
/// before it computes, so tests can hold a request inside a model.
///
/// The model configuration parameter "execute_delay_ms" (a string holding a
/// non-negative integer of milliseconds) sets the default delay. Setting it,
/// even to "0", opts the model into delays: the model then reports
/// blocking() (it runs on a thread of its own) and honours the request
/// parameter "execute_delay_ms" (an integer) as a per-request override. A
/// model whose configuration does not set it never waits, whatever the request
/// says, because it runs on a shared scheduler thread.
class execute_delay {
 public:
  /// The name of the configuration and request parameter.
  static constexpr const char* parameter_name = "execute_delay_ms";

  /// Reads the setting from `config`. INVALID_ARG naming the parameter when
  /// its value is not a non-negative integer.
  static result<execute_delay> from_config(const inference::ModelConfig& config);

  /// True when the configuration set the parameter: the model may block.
  bool configured() const noexcept { return configured_; }

  /// The configured default delay.
  std::chrono::milliseconds default_delay() const noexcept { return default_; }

  /// The delay of one job: its request override when the model allows
  /// overrides, else the default. A negative override counts as zero.
  std::chrono::milliseconds delay_for(const inference_job& job) const noexcept;

  /// Waits the longest delay among `jobs`, returning early once every job is
  /// cancelled. Returns false when it returned early.
  bool wait(const batch& jobs) const;

 private:
  bool configured_ = false;
  std::chrono::milliseconds default_{0};
};

/// Sleeps for `delay` in steps of at most one millisecond, and stops as soon
/// as `stop()` returns true. Returns false when it stopped early.
bool wait_unless(std::chrono::milliseconds delay, const std::function<bool()>& stop);

} // namespace conch::runtime::backends::common
