#include "conch/runtime/batching/queue_policy.hpp"

namespace conch::runtime::batching {

std::string_view to_string(timeout_action action) noexcept {
  return action == timeout_action::delay ? "DELAY" : "REJECT";
}

queue_policy queue_policy_from(const inference::ModelQueuePolicy& policy) noexcept {
  queue_policy result;
  result.action = policy.timeout_action() == inference::ModelQueuePolicy::DELAY
                    ? timeout_action::delay
                    : timeout_action::reject;
  result.default_timeout_us = policy.default_timeout_microseconds();
  result.allow_timeout_override = policy.allow_timeout_override();
  result.max_queue_size = policy.max_queue_size();
  return result;
}

} // namespace conch::runtime::batching
