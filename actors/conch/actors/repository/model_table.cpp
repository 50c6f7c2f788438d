#include "conch/actors/repository/model_table.hpp"

namespace conch::actors {

runtime::result<const version_entry*> model_table::resolve(const std::string& name,
                                                           int64_t version) const {
  auto i = models.find(name);
  if (i == models.end() || i->second.versions.empty())
    return runtime::not_found("Request for unknown model: '" + name + "' is not found");
  const auto& versions = i->second.versions;
  if (version < 0) {
    for (auto v = versions.rbegin(); v != versions.rend(); ++v)
      if (v->state == model_state::ready)
        return &*v;
    return runtime::not_found("Request for unknown model: '" + name
                              + "' has no available versions");
  }
  for (const auto& v : versions) {
    if (v.version != version)
      continue;
    if (v.state != model_state::ready)
      return runtime::unavailable("'" + name + "' version " + std::to_string(version)
                                  + " is not at ready state");
    return &v;
  }
  return runtime::not_found("Request for unknown model: '" + name + "' version "
                            + std::to_string(version) + " is not found");
}

const version_entry* model_table::find(const std::string& name, int64_t version) const {
  auto i = models.find(name);
  if (i == models.end())
    return nullptr;
  for (const auto& v : i->second.versions)
    if (v.version == version)
      return &v;
  return nullptr;
}

void mark_broken_ensembles(model_table& table) {
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [name, m] : table.models)
      for (auto& v : m.versions) {
        if (v.state != model_state::ready || !v.config || !v.config->has_ensemble_scheduling())
          continue;
        std::string missing;
        for (const auto& step : v.config->ensemble_scheduling().step()) {
          auto version = step.model_version() > 0 ? step.model_version() : -1;
          if (!table.resolve(step.model_name(), version)
              && (", " + missing + ", ").find(", " + step.model_name() + ", ") == std::string::npos)
            missing += (missing.empty() ? "" : ", ") + step.model_name();
        }
        if (missing.empty())
          continue;
        v.state = model_state::unavailable;
        v.reason = "ensemble " + name + " contains models that are not available or ambiguous: "
                   + missing;
        changed = true;
      }
  }
}

} // namespace conch::actors
