#include "conch/runtime/model_config/validate_scheduling.hpp"

#include <set>

#include "conch/runtime/model_config/config_error.hpp"

namespace conch::runtime::model_config {

namespace {

using control_t = inference::ModelSequenceBatching::Control;

status check_preferred(const google::protobuf::RepeatedField<int32_t>& sizes,
                       const std::string& field, int32_t max_batch_size,
                       const std::string& file) {
  for (int i = 0; i < sizes.size(); ++i) {
    const auto where = indexed(field, static_cast<size_t>(i));
    if (sizes[i] < 1)
      return config_error(file, where,
                          "preferred batch size must be positive, got " + std::to_string(sizes[i]));
    if (sizes[i] > max_batch_size)
      return config_error(file, where,
                          "preferred batch size " + std::to_string(sizes[i]) +
                              " exceeds max_batch_size " + std::to_string(max_batch_size));
  }
  return status::ok();
}

status check_priorities(const inference::ModelDynamicBatching& b, const std::string& file) {
  const auto levels = b.priority_levels();
  if (levels == 0)
    return status::ok();
  const auto range = "[1, " + std::to_string(levels) + "]";
  if (b.default_priority_level() < 1 || b.default_priority_level() > levels)
    return config_error(file, "dynamic_batching.default_priority_level",
                        "must be in range " + range + ", got " +
                            std::to_string(b.default_priority_level()));
  for (const auto& [level, policy] : b.priority_queue_policy())
    if (level < 1 || level > levels)
      return config_error(file, "dynamic_batching.priority_queue_policy",
                          "priority level " + std::to_string(level) + " is outside " + range);
  return status::ok();
}

bool delays(const inference::ModelQueuePolicy& policy) {
  return policy.default_timeout_microseconds() != 0 &&
         policy.timeout_action() == inference::ModelQueuePolicy::DELAY;
}

status check_ordering(const inference::ModelConfig& c, const std::string& file) {
  const auto& b = c.dynamic_batching();
  if (!b.preserve_ordering())
    return status::ok();
  const std::string field = "dynamic_batching.preserve_ordering";
  if (c.model_transaction_policy().decoupled())
    return config_error(file, field, "is not supported for a decoupled model "
                                     "(model_transaction_policy.decoupled is true)");
  if (b.priority_levels() > 1)
    return config_error(file, field,
                        "allows only one priority level, but priority_levels is " +
                            std::to_string(b.priority_levels()));
  if (delays(b.default_queue_policy()))
    return config_error(file, "dynamic_batching.default_queue_policy.timeout_action",
                        "DELAY is not allowed when preserve_ordering is true");
  for (const auto& [level, policy] : b.priority_queue_policy())
    if (delays(policy))
      return config_error(file, "dynamic_batching.priority_queue_policy",
                          "DELAY (level " + std::to_string(level) +
                              ") is not allowed when preserve_ordering is true");
  return status::ok();
}

// Triton's rules for one sequence control: a boolean control gives exactly
// one [false, true] pair; the CORRID control gives none, only a data type.
status check_control(const control_t& ctl, const std::string& path, const std::string& file) {
  int pairs = (ctl.int32_false_true_size() > 0) + (ctl.fp32_false_true_size() > 0) +
              (ctl.bool_false_true_size() > 0);
  int entries = ctl.int32_false_true_size() + ctl.fp32_false_true_size() +
                ctl.bool_false_true_size();
  const auto kind = control_t::Kind_Name(ctl.kind());
  if (ctl.kind() == control_t::CONTROL_SEQUENCE_CORRID) {
    if (pairs != 0)
      return config_error(file, path, kind + " must not specify false/true values");
    auto t = ctl.data_type();
    if (t != inference::TYPE_UINT64 && t != inference::TYPE_INT64 &&
        t != inference::TYPE_UINT32 && t != inference::TYPE_INT32 && t != inference::TYPE_STRING)
      return config_error(file, path + ".data_type",
                          kind + " must be TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 "
                                 "or TYPE_STRING, got " + inference::DataType_Name(t));
    return status::ok();
  }
  if (pairs != 1)
    return config_error(file, path,
                        kind + " must specify exactly one of int32_false_true, "
                               "fp32_false_true or bool_false_true");
  if (entries != 2)
    return config_error(file, path,
                        kind + " false/true values must have exactly 2 entries, got " +
                            std::to_string(entries));
  return status::ok();
}

status check_controls(const inference::ModelSequenceBatching& b, const std::string& file) {
  std::set<std::string> tensors;
  std::set<int> kinds;
  for (int i = 0; i < b.control_input_size(); ++i) {
    const auto& input = b.control_input(i);
    const auto path = indexed("sequence_batching.control_input", static_cast<size_t>(i));
    if (input.name().empty())
      return config_error(file, path + ".name", "control tensor must have a name");
    if (!tensors.insert(input.name()).second)
      return config_error(file, path + ".name",
                          "control tensor '" + input.name() + "' is specified twice");
    for (int j = 0; j < input.control_size(); ++j) {
      const auto cpath = indexed(path + ".control", static_cast<size_t>(j));
      if (!kinds.insert(input.control(j).kind()).second)
        return config_error(file, cpath + ".kind",
                            "control " + control_t::Kind_Name(input.control(j).kind()) +
                                " is specified more than once");
      CONCH_RUNTIME_RETURN_IF_ERROR(check_control(input.control(j), cpath, file));
    }
  }
  return status::ok();
}

status check_sequence(const inference::ModelConfig& c, const std::string& file) {
  const auto& b = c.sequence_batching();
  if (c.response_cache().enable())
    return config_error(file, "response_cache.enable",
                        "Response Cache does not currently support model " + c.name()
                          + " with sequence batching scheduler. Please disable the response "
                            "cache.");
  CONCH_RUNTIME_RETURN_IF_ERROR(check_controls(b, file));
  if (b.has_oldest())
    CONCH_RUNTIME_RETURN_IF_ERROR(check_preferred(b.oldest().preferred_batch_size(),
                                                  "sequence_batching.oldest.preferred_batch_size",
                                                  c.max_batch_size(), file));
  if (b.has_direct()) {
    auto u = b.direct().minimum_slot_utilization();
    if (!(u >= 0.0f && u <= 1.0f))
      return config_error(file, "sequence_batching.direct.minimum_slot_utilization",
                          "must be in range [0.0, 1.0], got " + std::to_string(u));
  }
  return status::ok();
}

status check_ensemble(const inference::ModelConfig& c, const std::string& file) {
  if (c.platform() != "ensemble")
    return config_error(file, "ensemble_scheduling",
                        "is only allowed when platform is \"ensemble\", got \"" + c.platform() +
                            "\"");
  if (c.instance_group_size() != 0)
    return config_error(file, "instance_group", "must not be specified for an ensemble");
  if (c.has_optimization())
    return config_error(file, "optimization", "must not be specified for an ensemble");
  if (c.model_warmup_size() != 0)
    return config_error(file, "model_warmup", "must not be specified for an ensemble");
  const auto& steps = c.ensemble_scheduling().step();
  if (steps.empty())
    return config_error(file, "ensemble_scheduling.step", "an ensemble needs at least one step");
  for (int i = 0; i < steps.size(); ++i) {
    const auto path = indexed("ensemble_scheduling.step", static_cast<size_t>(i));
    if (steps[i].model_name().empty())
      return config_error(file, path + ".model_name", "must name a model");
    if (steps[i].input_map().empty())
      return config_error(file, path + ".input_map", "must map at least one input");
    if (steps[i].output_map().empty())
      return config_error(file, path + ".output_map", "must map at least one output");
  }
  return status::ok();
}

} // namespace

status validate_scheduling(const inference::ModelConfig& config, const std::string& file) {
  if (config.has_dynamic_batching()) {
    CONCH_RUNTIME_RETURN_IF_ERROR(
        check_preferred(config.dynamic_batching().preferred_batch_size(),
                        "dynamic_batching.preferred_batch_size", config.max_batch_size(), file));
    CONCH_RUNTIME_RETURN_IF_ERROR(check_priorities(config.dynamic_batching(), file));
    CONCH_RUNTIME_RETURN_IF_ERROR(check_ordering(config, file));
  }
  if (config.has_sequence_batching())
    CONCH_RUNTIME_RETURN_IF_ERROR(check_sequence(config, file));
  if (config.has_ensemble_scheduling())
    return check_ensemble(config, file);
  if (config.platform() == "ensemble")
    return config_error(file, "ensemble_scheduling",
                        "must be specified when platform is \"ensemble\"");
  return status::ok();
}

} // namespace conch::runtime::model_config
