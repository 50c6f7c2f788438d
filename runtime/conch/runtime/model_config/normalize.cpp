#include "conch/runtime/model_config/normalize.hpp"

#include <cstdint>

#include "conch/runtime/model_config/config_error.hpp"

namespace conch::runtime::model_config {

namespace {

using group_t = inference::ModelInstanceGroup;

// Triton's idle limit for a sequence when the configuration gives none.
constexpr uint64_t default_sequence_idle_us = 1'000'000;

bool is_ensemble(const inference::ModelConfig& config) {
  return config.has_ensemble_scheduling() || config.platform() == "ensemble";
}

void normalize_scheduling(inference::ModelConfig& config) {
  const int32_t max_batch = config.max_batch_size();
  if (config.has_dynamic_batching()) {
    auto& batching = *config.mutable_dynamic_batching();
    if (batching.preferred_batch_size_size() == 0 && max_batch > 0)
      batching.add_preferred_batch_size(max_batch);
  }
  if (config.has_sequence_batching()) {
    auto& batching = *config.mutable_sequence_batching();
    if (batching.max_sequence_idle_microseconds() == 0)
      batching.set_max_sequence_idle_microseconds(default_sequence_idle_us);
    if (batching.has_oldest() && batching.oldest().preferred_batch_size_size() == 0 &&
        max_batch > 0)
      batching.mutable_oldest()->add_preferred_batch_size(max_batch);
  }
}

void normalize_pinned_memory(inference::ModelConfig& config) {
  auto& optimization = *config.mutable_optimization();
  if (!optimization.has_input_pinned_memory())
    optimization.mutable_input_pinned_memory()->set_enable(true);
  if (!optimization.has_output_pinned_memory())
    optimization.mutable_output_pinned_memory()->set_enable(true);
}

bool all_gpus_exist(const group_t& group, int gpu_count) {
  if (gpu_count <= 0)
    return false;
  for (auto id : group.gpus())
    if (id < 0 || id >= gpu_count)
      return false;
  return true;
}

// Triton starts two CPU instances for the backends whose CPU kernels scale
// with concurrent instances, and one everywhere else.
int32_t default_count(const group_t& group, const std::string& backend) {
  bool scales = backend == "onnxruntime" || backend == "tensorflow";
  return group.kind() == group_t::KIND_CPU && scales ? 2 : 1;
}

status place_gpu_group(group_t& group, const std::string& field, const std::string& model,
                       int gpu_count) {
  const auto who = "instance group '" + group.name() + "' of model '" + model + "'";
  if (gpu_count <= 0)
    return invalid_argument(field + ": " + who +
                            " specifies KIND_GPU but no GPUs are available");
  if (group.gpus_size() == 0) {
    for (int id = 0; id < gpu_count; ++id)
      group.add_gpus(id);
    return status::ok();
  }
  for (auto id : group.gpus())
    if (id < 0 || id >= gpu_count)
      return invalid_argument(field + ": " + who + " specifies GPU " + std::to_string(id) +
                              " but only GPUs 0.." + std::to_string(gpu_count - 1) +
                              " are available");
  return status::ok();
}

status normalize_group(group_t& group, size_t index, const inference::ModelConfig& config,
                       int gpu_count) {
  if (group.name().empty())
    group.set_name(config.name() + "_" + std::to_string(index));
  if (group.kind() == group_t::KIND_AUTO)
    group.set_kind(all_gpus_exist(group, gpu_count) ? group_t::KIND_GPU : group_t::KIND_CPU);
  if (group.count() < 1)
    group.set_count(default_count(group, config.backend()));
  if (group.kind() == group_t::KIND_GPU)
    return place_gpu_group(group, indexed("instance_group", index), config.name(), gpu_count);
  return status::ok();
}

status normalize_instance_groups(inference::ModelConfig& config, int gpu_count) {
  // The group Triton makes for a configuration without any is named after
  // the model itself, not "<model>_0".
  if (config.instance_group_size() == 0)
    config.add_instance_group()->set_name(config.name());
  for (int i = 0; i < config.instance_group_size(); ++i)
    CONCH_RUNTIME_RETURN_IF_ERROR(normalize_group(*config.mutable_instance_group(i),
                                                  static_cast<size_t>(i), config, gpu_count));
  return status::ok();
}

} // namespace

status normalize(inference::ModelConfig& config, const std::string& directory_name,
                 const normalize_options& options) {
  if (config.name().empty())
    config.set_name(directory_name);
  else if (!directory_name.empty() && config.name() != directory_name)
    return invalid_argument("name: model name '" + config.name() +
                            "' in the configuration differs from its directory name '" +
                            directory_name + "'");
  if (!config.has_version_policy())
    config.mutable_version_policy()->mutable_latest()->set_num_versions(1);
  normalize_scheduling(config);
  if (is_ensemble(config))
    return status::ok();
  normalize_pinned_memory(config);
  return normalize_instance_groups(config, options.gpu_count);
}

} // namespace conch::runtime::model_config
