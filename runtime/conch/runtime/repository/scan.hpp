#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/repository/model_location.hpp"
#include "conch/runtime/repository/repository_root.hpp"
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

/// Lists the models of `roots`. Every subdirectory (or symbolic link to a
/// directory) whose name does not start with '.' is a model, known by its
/// root's name mapping when that maps it and by its own name otherwise;
/// regular files are skipped, and so are mapped directories that do not
/// exist. A mapped name wins over unmapped directories of the same name, so
/// only two mappings, or two unmapped directories, make a name ambiguous.
/// Never throws; reads the file system only.
scan_result scan(const std::vector<repository_root>& roots);

/// As above, over repositories without name mappings.
scan_result scan(const std::vector<std::filesystem::path>& repositories);

/// Where the model called `name` could come from, in the order of `roots`:
/// the directories mapped to `name` when any root maps one, else every
/// unmapped directory called `name`. Empty for names that cannot be a
/// directory name ("", ".", "..", names with '/' or a leading '.').
std::vector<model_location> find_all(const std::vector<repository_root>& roots,
                                     const std::string& name);

/// As above, over repositories without name mappings.
std::vector<model_location> find_all(const std::vector<std::filesystem::path>& repositories,
                                     const std::string& name);

/// The model called `name` when exactly one location holds it; nullopt when
/// none or several do (use `find_all` or `scan` to tell the two apart).
std::optional<model_location> find(const std::vector<repository_root>& roots,
                                   const std::string& name);

/// As above, over repositories without name mappings.
std::optional<model_location> find(const std::vector<std::filesystem::path>& repositories,
                                   const std::string& name);

/// True when `name` can name a model directory: not empty, no leading '.',
/// no '/', '\\' or NUL.
bool is_valid_model_name(const std::string& name);

} // namespace conch::runtime::repository
