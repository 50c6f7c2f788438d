#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace conch::runtime {

/// What a load asks for beyond the model's name, from any origin (a
/// frontend's load request, the in-process API, a model's BLS call): a JSON
/// configuration that replaces config.pbtxt, and file contents
/// ("file:<version>/<path>", bytes) that replace the model directory.
struct load_parameters {
  std::optional<std::string> config_json;
  std::vector<std::pair<std::string, std::string>> files;
};

} // namespace conch::runtime
