#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace conch::runtime::repository {

/// One model repository the server reads: its directory and the names some
/// of its model directories are known by instead of their own.
struct repository_root {
  /// The repository directory.
  std::filesystem::path path;
  /// Model directory name -> the model name it is known by. A mapped
  /// directory is known by the mapped name only; the others keep their own.
  std::map<std::string, std::string> name_mapping;
};

/// One root without a name mapping per path, in the order given.
inline std::vector<repository_root> roots_of(const std::vector<std::filesystem::path>& paths) {
  std::vector<repository_root> out;
  out.reserve(paths.size());
  for (const auto& p : paths)
    out.push_back(repository_root{p, {}});
  return out;
}

} // namespace conch::runtime::repository
