#include "conch/runtime/backends/common/model_config_view.hpp"

#include <charconv>

namespace conch::runtime::backends::common {

const inference::ModelInput* find_input(const inference::ModelConfig& config,
                                        std::string_view name) noexcept {
  for (const auto& in : config.input())
    if (in.name() == name)
      return &in;
  return nullptr;
}

const inference::ModelOutput* find_output(const inference::ModelConfig& config,
                                          std::string_view name) noexcept {
  for (const auto& out : config.output())
    if (out.name() == name)
      return &out;
  return nullptr;
}

data_type to_data_type(inference::DataType type) noexcept {
  auto value = static_cast<int>(type);
  if (value < 0 || value > static_cast<int>(data_type::bf16))
    return data_type::invalid;
  return static_cast<data_type>(value);
}

const std::string* find_config_parameter(const inference::ModelConfig& config,
                                         const std::string& name) noexcept {
  auto i = config.parameters().find(name);
  if (i == config.parameters().end())
    return nullptr;
  return &i->second.string_value();
}

result<int64_t> non_negative_config_parameter(const inference::ModelConfig& config,
                                              const std::string& name, int64_t fallback) {
  const auto* text = find_config_parameter(config, name);
  if (text == nullptr)
    return fallback;
  int64_t value = 0;
  const char* first = text->data();
  const char* last = first + text->size();
  auto [end, ec] = std::from_chars(first, last, value);
  if (text->empty() || ec != std::errc{} || end != last || value < 0)
    return model_error(config, "parameter '" + name + "' must be a non-negative integer, got '"
                                 + *text + "'");
  return value;
}

status model_error(const inference::ModelConfig& config, std::string_view message) {
  return invalid_argument("model '" + config.name() + "': " + std::string{message});
}

} // namespace conch::runtime::backends::common
