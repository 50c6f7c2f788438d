#include "conch/transports/forwarding/header_forwarding.hpp"

#include <array>
#include <cctype>

namespace conch::transports::forwarding {

namespace {

bool same_letters(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i]))
        != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

} // namespace

runtime::result<std::optional<pattern::text_pattern>>
compile_forward_pattern(const std::string& source, std::string_view option) {
  if (source.empty())
    return std::optional<pattern::text_pattern>{};
  auto compiled = pattern::text_pattern::compile(source, pattern::letter_case::ignored);
  if (!compiled)
    return runtime::invalid_argument(std::string{option} + " '" + source
                                     + "' is not a valid regular expression: "
                                     + compiled.error().message());
  return std::optional<pattern::text_pattern>{std::move(*compiled)};
}

runtime::result<bool> forwards_header(std::string_view name,
                                      const pattern::text_pattern& pattern) {
  if (!pattern.found_in(name))
    return false;
  if (reserved_parameter(name))
    return runtime::invalid_argument("Header '" + std::string{name} + "' is reserved");
  return true;
}

bool reserved_parameter(std::string_view name) noexcept {
  static constexpr std::array<std::string_view, 7> reserved{
    "sequence_id", "sequence_start", "sequence_end",      "priority",
    "timeout",     "headers",        "binary_data_output"};
  for (auto r : reserved)
    if (same_letters(name, r))
      return true;
  return name.size() >= 7 && same_letters(name.substr(0, 7), "triton_");
}

} // namespace conch::transports::forwarding
