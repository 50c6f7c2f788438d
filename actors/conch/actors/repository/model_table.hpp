#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>

#include "conch/actors/scheduling/direct_lane.hpp"
#include "conch/actors/scheduling/model_readiness.hpp"
#include "conch/actors/scheduling/scheduler_interface.hpp"
#include "conch/runtime/model_config/resolved_model.hpp"
#include "conch/runtime/output_labels.hpp"
#include "conch/runtime/repository/model_state.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/statistics/model_statistics.hpp"
#include "conch/runtime/tensor_reshape.hpp"
#include "model_config.pb.h"

namespace conch::actors {

using runtime::model_state;
using runtime::model_state_name;

/// One version of a model as the request path sees it: the version and
/// config a resolved request is decoded against (runtime::resolved_model),
/// and where it runs.
struct version_entry : runtime::resolved_model {
  version_entry() = default;
  version_entry(int64_t v, model_state s, std::string why,
                std::shared_ptr<const inference::ModelConfig> c)
    : resolved_model(v, std::move(c)), state(s), reason(std::move(why)) {}

  model_state state = model_state::unknown;
  std::string reason;
  /// The version's scheduler; valid while READY.
  scheduler_actor scheduler;
  std::shared_ptr<runtime::statistics::model_statistics> stats;
  /// The class labels of the model's outputs; null when it has none.
  std::shared_ptr<const runtime::output_labels> labels;
  /// The reshapes of the model's inputs and outputs; null when it has none.
  std::shared_ptr<const runtime::tensor_reshapes> reshapes;
  /// Where the scheduler lends idle instances; null when the model is not
  /// eligible (scheduler_hooks.hpp, lane_eligible).
  std::shared_ptr<direct_lane> lane;
  /// The instances' own readiness checks (readiness_probe); null when the
  /// version has no scheduler.
  std::shared_ptr<model_readiness> readiness;
};

/// One model: its versions, ascending.
struct model_entry {
  std::string name;
  std::vector<version_entry> versions;
};

/// An immutable snapshot of every model the repository knows. The repository
/// publishes a new snapshot after each change; readers keep the one they hold,
/// so the request path reads it without locks.
class model_table {
 public:
  std::unordered_map<std::string, model_entry> models;

  /// The version a request for (`name`, `version`) goes to: the highest READY
  /// version when `version` is -1. Errors use Triton's wording.
  runtime::result<const version_entry*> resolve(const std::string& name, int64_t version) const;

  /// The version entry, READY or not; nullptr when unknown.
  const version_entry* find(const std::string& name, int64_t version) const;
};

using model_table_ptr = std::shared_ptr<const model_table>;

/// Marks the READY versions of ensembles that call a model which is not
/// READY in `table` (directly or through another ensemble) as UNAVAILABLE,
/// with Triton's reason: an ensemble is ready only while its composing
/// models are. The marks live in the table only: an ensemble is ready again
/// in the first table where its models are.
void mark_broken_ensembles(model_table& table);

} // namespace conch::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::model_table_ptr)
