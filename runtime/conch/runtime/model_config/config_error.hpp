#pragma once

#include <cstddef>
#include <string>

#include "conch/runtime/result.hpp"
#include "conch/runtime/status.hpp"

namespace conch::runtime::model_config {

/// The INVALID_ARG status of a failed configuration check, worded
/// "<file>: <field>: <problem>" so that every message names both the file and
/// the field at fault.
inline status config_error(const std::string& file, const std::string& field,
                           const std::string& problem) {
  return invalid_argument(file + ": " + field + ": " + problem);
}

/// The path of element `index` of a repeated field: "input[2]".
inline std::string indexed(const std::string& field, size_t index) {
  return field + "[" + std::to_string(index) + "]";
}

} // namespace conch::runtime::model_config
