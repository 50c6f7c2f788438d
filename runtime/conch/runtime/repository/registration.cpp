#include "conch/runtime/repository/registration.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <system_error>

#include "conch/runtime/repository/scan.hpp"

namespace conch::runtime::repository {

namespace fs = std::filesystem;

namespace {

fs::path normalized(const fs::path& p) {
  auto n = p.lexically_normal();
  if (!n.has_filename() && n.has_relative_path())
    n = n.parent_path();
  return n;
}

std::string quoted(const fs::path& p) {
  return "'" + p.string() + "'";
}

// The mapping's own problems: invalid names, or two directories for one name.
status check_mapping(const repository_root& candidate) {
  std::set<std::string> names;
  for (const auto& [directory, name] : candidate.name_mapping) {
    if (!is_valid_model_name(directory) || !is_valid_model_name(name))
      return invalid_argument("failed to register " + quoted(candidate.path)
                              + ", invalid name mapping '" + directory + "' -> '" + name
                              + "': both must be non-empty directory names without '/' "
                                "that do not start with '.'");
    if (!names.insert(name).second)
      return invalid_argument("failed to register " + quoted(candidate.path)
                              + ", there is a conflicting mapping for '" + name
                              + "': several directories map to it");
  }
  return status::ok();
}

// Whether `root` already gives a model the name `name`: by its mapping, or
// by an unmapped directory of that name.
status check_name_free(const repository_root& root, const repository_root& candidate,
                       const std::string& name) {
  for (const auto& [directory, mapped] : root.name_mapping)
    if (mapped == name)
      return already_exists("failed to register " + quoted(candidate.path)
                            + ", there is a conflicting mapping for '" + name + "': repository "
                            + quoted(root.path) + " already maps its directory '" + directory
                            + "' to that name");
  std::error_code ec;
  if (root.name_mapping.count(name) == 0 && fs::is_directory(root.path / name, ec) && !ec)
    return already_exists("failed to register " + quoted(candidate.path) + ", mapped name '"
                          + name + "' is already the name of a model in repository "
                          + quoted(root.path));
  return status::ok();
}

} // namespace

bool same_repository(const fs::path& a, const fs::path& b) {
  return normalized(a) == normalized(b);
}

status check_registration(const std::vector<repository_root>& roots,
                          const repository_root& candidate) {
  std::error_code ec;
  if (candidate.path.empty() || !fs::is_directory(candidate.path, ec) || ec)
    return invalid_argument("failed to register " + quoted(candidate.path)
                            + ", repository not found");
  for (const auto& root : roots)
    if (same_repository(root.path, candidate.path))
      return already_exists("model repository " + quoted(candidate.path)
                            + " has already been registered");
  if (auto st = check_mapping(candidate); !st)
    return st;
  for (const auto& [directory, name] : candidate.name_mapping)
    for (const auto& root : roots)
      if (auto st = check_name_free(root, candidate, name); !st)
        return st;
  return status::ok();
}

status remove_root(std::vector<repository_root>& roots, const fs::path& path) {
  auto it = std::find_if(roots.begin(), roots.end(), [&](const repository_root& r) {
    return same_repository(r.path, path);
  });
  if (it == roots.end())
    return invalid_argument("failed to unregister " + quoted(path) + ", repository not found");
  roots.erase(it);
  return status::ok();
}

} // namespace conch::runtime::repository
