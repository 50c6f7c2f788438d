#pragma once

#include <filesystem>
#include <string>

namespace conch::runtime::repository {

/// Where one model lives on disk: its name, the repository that holds it and
/// its own directory.
struct model_location {
  /// The model name: the directory name, or the name a mapping gives it.
  std::string name;
  /// The repository directory the model was found in.
  std::filesystem::path repository;
  /// The model directory, `repository / <directory name>`.
  std::filesystem::path path;
  /// True when `name` comes from the repository's name mapping; the
  /// configuration then takes that name whatever its own says.
  bool mapped = false;
};

} // namespace conch::runtime::repository
