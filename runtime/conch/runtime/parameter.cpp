#include "conch/runtime/parameter.hpp"

namespace conch::runtime {

const parameter* find_parameter(const parameter_list& params, const std::string& name) noexcept {
  for (const auto& p : params)
    if (p.name == name)
      return &p;
  return nullptr;
}

std::optional<int64_t> int_parameter(const parameter_list& params, const std::string& name) noexcept {
  auto* p = find_parameter(params, name);
  if (p == nullptr)
    return std::nullopt;
  if (auto* i = std::get_if<int64_t>(&p->value))
    return *i;
  return std::nullopt;
}

} // namespace conch::runtime
