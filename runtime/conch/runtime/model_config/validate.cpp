#include "conch/runtime/model_config/validate.hpp"

#include <cctype>
#include <cmath>

#include "conch/runtime/model_config/config_error.hpp"
#include "conch/runtime/model_config/validate_enums.hpp"
#include "conch/runtime/model_config/validate_paths.hpp"
#include "conch/runtime/model_config/validate_limits.hpp"
#include "conch/runtime/model_config/validate_scheduling.hpp"
#include "conch/runtime/model_config/validate_tensors.hpp"

namespace conch::runtime::model_config {

namespace {

using group_t = inference::ModelInstanceGroup;

status check_identity(const inference::ModelConfig& c, const std::string& file) {
  if (c.name().empty())
    return config_error(file, "name", "the model must have a name");
  if (c.platform().empty() && c.backend().empty())
    return config_error(file, "backend", "must specify 'platform' or 'backend'");
  if (c.platform() == "ensemble" && !c.backend().empty())
    return config_error(file, "backend",
                        "an ensemble must leave 'backend' empty, got '" + c.backend() + "'");
  if (c.max_batch_size() < 0)
    return config_error(file, "max_batch_size",
                        "must be >= 0, got " + std::to_string(c.max_batch_size()));
  return status::ok();
}

status check_version_policy(const inference::ModelConfig& c, const std::string& file) {
  const auto& policy = c.version_policy();
  if (policy.has_latest() && policy.latest().num_versions() < 1)
    return config_error(file, "version_policy.latest.num_versions",
                        "must be >= 1, got " + std::to_string(policy.latest().num_versions()));
  if (!policy.has_specific())
    return status::ok();
  const auto& versions = policy.specific().versions();
  if (versions.empty())
    return config_error(file, "version_policy.specific.versions",
                        "must list at least one version");
  for (int i = 0; i < versions.size(); ++i)
    if (versions[i] < 1)
      return config_error(file,
                          indexed("version_policy.specific.versions", static_cast<size_t>(i)),
                          "version must be >= 1, got " + std::to_string(versions[i]));
  return status::ok();
}

bool is_profile_index(const std::string& s) {
  if (s.empty())
    return false;
  for (unsigned char ch : s)
    if (!std::isdigit(ch))
      return false;
  return true;
}

status check_group(const group_t& g, const std::string& path, const inference::ModelConfig& c,
                   const std::string& file) {
  const auto kind = group_t::Kind_Name(g.kind());
  if (g.kind() == group_t::KIND_AUTO)
    return internal_error(file + ": " + path + ".kind: KIND_AUTO was not resolved; normalize "
                          "the configuration before validating it");
  if (g.count() < 1)
    return config_error(file, path + ".count",
                        "instance count must be >= 1, got " + std::to_string(g.count()));
  if (g.kind() != group_t::KIND_GPU && g.gpus_size() > 0)
    return config_error(file, path + ".gpus",
                        "instance group '" + g.name() + "' has kind " + kind +
                            " but specifies one or more GPUs");
  if (g.profile_size() > 0 && c.platform() != "tensorrt_plan")
    return config_error(file, path + ".profile",
                        "profiles are only supported for the tensorrt_plan platform");
  for (int i = 0; i < g.profile_size(); ++i)
    if (!is_profile_index(g.profile(i)))
      return config_error(file, indexed(path + ".profile", static_cast<size_t>(i)),
                          "profile must be a non-negative integer, got '" + g.profile(i) + "'");
  return status::ok();
}

status check_instance_groups(const inference::ModelConfig& c, const std::string& file) {
  if (c.has_ensemble_scheduling())
    return status::ok();
  if (c.instance_group_size() == 0)
    return config_error(file, "instance_group", "must specify one or more instance groups");
  for (int i = 0; i < c.instance_group_size(); ++i)
    CONCH_RUNTIME_RETURN_IF_ERROR(check_group(
        c.instance_group(i), indexed("instance_group", static_cast<size_t>(i)), c, file));
  return status::ok();
}

status check_extras(const inference::ModelConfig& c, const std::string& file) {
  if (c.model_transaction_policy().decoupled() && c.response_cache().enable())
    return config_error(file, "response_cache.enable",
                        "Response Cache does not currently support model " + c.name()
                          + " with 'decoupled' transaction policy. Please disable the response "
                            "cache.");
  for (int i = 0; i < c.model_warmup_size(); ++i) {
    const auto& w = c.model_warmup(i);
    const auto path = indexed("model_warmup", static_cast<size_t>(i));
    const uint32_t limit = c.max_batch_size() > 0 ? static_cast<uint32_t>(c.max_batch_size()) : 1;
    if (w.batch_size() < 1 || w.batch_size() > limit)
      return config_error(file, path + ".batch_size",
                          "must be in range [1, " + std::to_string(limit) + "], got " +
                              std::to_string(w.batch_size()));
  }
  const auto& controls = c.model_metrics().metric_control();
  for (int i = 0; i < controls.size(); ++i) {
    const auto path = indexed("model_metrics.metric_control", static_cast<size_t>(i));
    if (controls[i].metric_identifier().family().empty())
      return config_error(file, path + ".metric_identifier.family", "must name a metric family");
    const auto& buckets = controls[i].histogram_options().buckets();
    if (buckets.empty())
      return config_error(file, path + ".histogram_options.buckets",
                          "must list at least one bucket");
    for (int b = 0; b < buckets.size(); ++b)
      if (!std::isfinite(buckets[b]) || (b > 0 && !(buckets[b - 1] < buckets[b])))
        return config_error(file, path + ".histogram_options.buckets",
                            "must be finite and strictly increasing");
  }
  return status::ok();
}

} // namespace

status validate(const inference::ModelConfig& config, const std::string& file) {
  CONCH_RUNTIME_RETURN_IF_ERROR(validate_enum_values(config, "", file));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_identity(config, file));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_version_policy(config, file));
  CONCH_RUNTIME_RETURN_IF_ERROR(validate_paths(config, file));
  CONCH_RUNTIME_RETURN_IF_ERROR(validate_tensors(config, file));
  CONCH_RUNTIME_RETURN_IF_ERROR(validate_scheduling(config, file));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_instance_groups(config, file));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_extras(config, file));
  return validate_limits(config, file);
}

} // namespace conch::runtime::model_config
