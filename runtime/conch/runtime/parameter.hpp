#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace conch::runtime {

/// A request or response parameter: a name and a string, integer, boolean or
/// double value.
struct parameter {
  using value_type = std::variant<std::string, int64_t, bool, double>;
  std::string name;
  value_type value;
};

using parameter_list = std::vector<parameter>;

/// The parameter called `name`, or nullptr.
const parameter* find_parameter(const parameter_list& params, const std::string& name) noexcept;

/// The integer value of `name` when present and integral.
std::optional<int64_t> int_parameter(const parameter_list& params, const std::string& name) noexcept;

} // namespace conch::runtime
