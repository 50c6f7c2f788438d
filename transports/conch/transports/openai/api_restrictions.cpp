#include "conch/transports/openai/api_restrictions.hpp"

namespace conch::transports::openai {

namespace {

struct named_group {
  const char* name;
  api_group group;
};

constexpr named_group group_names[] = {
  {"inference", api_group::inference},
  {"embedding", api_group::embedding},
  {"model-repository", api_group::model_repository},
  {"model-management", api_group::model_management},
  {"metrics", api_group::metrics},
  {"health", api_group::health},
};

std::string available() {
  std::string out = "[";
  for (const auto& g : group_names) {
    if (out.size() > 1)
      out += ", ";
    out += std::string{"'"} + g.name + "'";
  }
  return out + "]";
}

} // namespace

runtime::result<api_restrictions> api_restrictions::make(
  const std::vector<api_restriction>& groups) {
  api_restrictions out;
  for (const auto& g : groups) {
    if (g.key.empty())
      return runtime::invalid_argument("a restricted API group needs a header name");
    for (const auto& api : g.apis) {
      const named_group* found = nullptr;
      for (const auto& n : group_names)
        if (api == n.name)
          found = &n;
      if (found == nullptr)
        return runtime::invalid_argument("Unknown API '" + api + "'. Available APIs: "
                                         + available());
      for (const auto& r : out.rules_)
        if (r.group == found->group)
          return runtime::invalid_argument("restricted api '" + api
                                           + "' can not be specified in multiple config groups");
      out.rules_.push_back({found->group, g.key, g.value});
    }
  }
  return out;
}

std::optional<std::string_view> api_restrictions::missing_header(
  api_group group, const http::header_map& headers) const {
  for (const auto& r : rules_) {
    if (r.group != group)
      continue;
    const auto* v = headers.find(r.key);
    if (v == nullptr || *v != r.value)
      return std::string_view{r.key};
  }
  return std::nullopt;
}

} // namespace conch::transports::openai
