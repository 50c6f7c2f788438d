#pragma once

#include <atomic>
#include <memory>

#include "conch/runtime/statistics/connection_stats.hpp"

namespace conch::transports::http {

/// What the loops of one server share: the poll token (true while one of
/// them polls), the counts of their edge, and the budget of request bytes.
struct loop_shared {
  std::atomic<bool> poll_token{false};
  std::shared_ptr<runtime::statistics::connection_stats> stats;
  std::shared_ptr<runtime::statistics::byte_budget> input;
};

} // namespace conch::transports::http
