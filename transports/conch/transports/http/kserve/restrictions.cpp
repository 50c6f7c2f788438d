#include "conch/transports/http/kserve/restrictions.hpp"

namespace conch::transports::http::kserve {

runtime::result<restrictions> restrictions::make(const std::vector<feature_group>& groups) {
  auto made = protocol::restrictions::make(groups);
  if (!made)
    return made.error();
  restrictions out;
  out.groups_ = std::move(*made);
  return out;
}

std::optional<std::string_view> restrictions::missing_header(feature f,
                                                             const header_map& headers) const {
  const auto* r = groups_.required(f);
  if (r == nullptr)
    return std::nullopt;
  const auto* value = headers.find(r->key);
  if (value != nullptr && *value == r->value)
    return std::nullopt;
  return std::string_view{r->key};
}

} // namespace conch::transports::http::kserve
