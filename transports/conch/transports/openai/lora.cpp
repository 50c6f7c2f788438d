#include "conch/transports/openai/lora.hpp"

namespace conch::transports::openai {

lora_name split_model_name(std::string_view name, std::string_view separator) {
  if (separator.empty())
    return {std::string{name}, {}};
  auto at = name.find(separator);
  if (at == std::string_view::npos || at == 0 || at + separator.size() >= name.size()
      || name.find(separator, at + separator.size()) != std::string_view::npos)
    return {std::string{name}, {}};
  return {std::string{name.substr(0, at)}, std::string{name.substr(at + separator.size())}};
}

runtime::result<std::optional<uint64_t>> adapter_task_id(const lora_adapters& adapters,
                                                         const lora_name& name,
                                                         std::string_view full_name) {
  if (name.adapter.empty())
    return std::optional<uint64_t>{};
  auto listed = adapters.by_model.find(name.model);
  if (listed == adapters.by_model.end())
    return std::optional<uint64_t>{};
  const auto& list = listed->second;
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i] == name.adapter)
      return std::optional<uint64_t>{i + 1};
  return runtime::invalid_argument("Unknown LoRA: " + name.adapter + "; for model: "
                                   + std::string{full_name});
}

std::vector<std::string> model_ids(const std::vector<std::string>& models,
                                   const lora_adapters& adapters) {
  std::vector<std::string> ids;
  for (const auto& m : models) {
    ids.push_back(m);
    if (adapters.separator.empty())
      continue;
    auto listed = adapters.by_model.find(m);
    if (listed == adapters.by_model.end())
      continue;
    for (const auto& a : listed->second)
      ids.push_back(m + adapters.separator + a);
  }
  return ids;
}

} // namespace conch::transports::openai
