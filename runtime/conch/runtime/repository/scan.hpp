#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/repository/model_location.hpp"
#include "conch/runtime/status.hpp"

namespace conch::runtime::repository {

/// What a walk over the model repositories found: the models, sorted by name,
/// and the problems that kept a repository or a model out of the list.
struct scan_result {
  /// One entry per model name that exactly one repository holds, sorted by name.
  std::vector<model_location> models;
  /// (repository path or model name, error): unreadable repositories first, in
  /// the order given, then names held by several repositories, sorted.
  std::vector<std::pair<std::string, status>> errors;
};

/// Lists the models of `repositories`. Every subdirectory (or symbolic link to
/// a directory) whose name does not start with '.' is a model; regular files
/// are skipped. Never throws; reads the file system only.
scan_result scan(const std::vector<std::filesystem::path>& repositories);

/// Every repository of `repositories` that holds a model directory called
/// `name`, in the order given. Empty for names that cannot be a directory
/// name ("", ".", "..", names with '/' or a leading '.').
std::vector<model_location> find_all(const std::vector<std::filesystem::path>& repositories,
                                     const std::string& name);

/// The model called `name` when exactly one repository holds it; nullopt when
/// none or several do (use `find_all` or `scan` to tell the two apart).
std::optional<model_location> find(const std::vector<std::filesystem::path>& repositories,
                                   const std::string& name);

} // namespace conch::runtime::repository
