#include "conch/transports/protocol/restrictions.hpp"

#include <utility>

namespace conch::transports::protocol {

namespace {

constexpr std::array<std::pair<std::string_view, feature>, 9> feature_names{{
  {"health", feature::health},
  {"metadata", feature::metadata},
  {"inference", feature::inference},
  {"shared-memory", feature::shared_memory},
  {"model-config", feature::model_config},
  {"model-repository", feature::model_repository},
  {"statistics", feature::statistics},
  {"trace", feature::trace},
  {"logging", feature::logging},
}};

} // namespace

std::optional<feature> parse_feature(std::string_view name) noexcept {
  for (const auto& [text, f] : feature_names)
    if (text == name)
      return f;
  return std::nullopt;
}

runtime::result<restrictions> restrictions::make(const std::vector<feature_group>& groups) {
  restrictions out;
  for (const auto& g : groups) {
    if (g.key.empty())
      return runtime::invalid_argument("a restricted feature group needs a header name");
    for (const auto& name : g.features) {
      auto f = parse_feature(name);
      if (!f)
        return runtime::invalid_argument(
          "unknown restricted feature '" + name
          + "'; one of: health, metadata, inference, shared-memory, model-config, "
            "model-repository, statistics, trace, logging");
      auto& slot = out.required_[static_cast<size_t>(*f)];
      if (slot)
        return runtime::invalid_argument("feature '" + name
                                         + "' is in more than one restricted group");
      slot = requirement{g.key, g.value};
    }
  }
  return out;
}

const restrictions::requirement* restrictions::required(feature f) const noexcept {
  const auto& r = required_[static_cast<size_t>(f)];
  return r ? &*r : nullptr;
}

} // namespace conch::transports::protocol
