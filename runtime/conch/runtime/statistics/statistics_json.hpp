#pragma once

#include <string>
#include <vector>

#include "conch/runtime/statistics/statistics_snapshot.hpp"

namespace conch::runtime::statistics {

/// The statistics extension's JSON body, `{"model_stats":[...]}`, with one
/// entry per snapshot in the order given: `version` a string, every number
/// an unsigned integer, `response_stats` an object keyed by the response
/// index (empty unless decoupled), `batch_stats` and `memory_usage` arrays.
std::string statistics_json(const std::vector<statistics_snapshot>& models);

} // namespace conch::runtime::statistics
