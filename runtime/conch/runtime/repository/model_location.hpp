#pragma once

#include <filesystem>
#include <string>

namespace conch::runtime::repository {

/// Where one model lives on disk: its name, the repository that holds it and
/// its own directory (always `repository / name`).
struct model_location {
  /// The model name, equal to the directory name.
  std::string name;
  /// The repository directory the model was found in.
  std::filesystem::path repository;
  /// The model directory, `repository / name`.
  std::filesystem::path path;
};

} // namespace conch::runtime::repository
