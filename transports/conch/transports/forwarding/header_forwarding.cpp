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

runtime::result<std::optional<std::regex>> compile_forward_pattern(const std::string& pattern,
                                                                   std::string_view option) {
  if (pattern.empty())
    return std::optional<std::regex>{};
  try {
    return std::optional<std::regex>{std::in_place, pattern,
                                     std::regex::ECMAScript | std::regex::icase};
  } catch (const std::regex_error& e) {
    return runtime::invalid_argument(std::string{option} + " '" + pattern
                                     + "' is not a valid regular expression: " + e.what());
  }
}

runtime::result<bool> forwards_header(std::string_view name, const std::regex& pattern) {
  if (!std::regex_search(name.begin(), name.end(), pattern))
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
