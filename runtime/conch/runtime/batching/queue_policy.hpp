#pragma once

#include <cstdint>
#include <string_view>

#include "model_config.pb.h"

namespace conch::runtime::batching {

/// What the queue does with a request whose queue timeout has passed.
enum class timeout_action : uint8_t {
  /// Fail the request with UNAVAILABLE ("Request timeout expired").
  reject,
  /// Keep the request, but serve it only after every request of its priority
  /// level that has not timed out.
  delay,
};

/// "REJECT" or "DELAY", as the model configuration spells the action.
std::string_view to_string(timeout_action action) noexcept;

/// The queueing rules of one priority level (Triton's ModelQueuePolicy).
struct queue_policy {
  /// What happens to a request whose timeout passed while it was queued.
  timeout_action action = timeout_action::reject;
  /// The queue timeout of every request in microseconds; 0 means none.
  uint64_t default_timeout_us = 0;
  /// Whether a request's own timeout may lower (never raise) the default.
  bool allow_timeout_override = false;
  /// The most requests the level holds at once; 0 means unbounded.
  uint64_t max_queue_size = 0;

  friend bool operator==(const queue_policy& a, const queue_policy& b) noexcept {
    return a.action == b.action && a.default_timeout_us == b.default_timeout_us
           && a.allow_timeout_override == b.allow_timeout_override
           && a.max_queue_size == b.max_queue_size;
  }
  friend bool operator!=(const queue_policy& a, const queue_policy& b) noexcept {
    return !(a == b);
  }
};

/// The policy a ModelQueuePolicy message describes.
queue_policy queue_policy_from(const inference::ModelQueuePolicy& policy) noexcept;

} // namespace conch::runtime::batching
