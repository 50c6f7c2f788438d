#include "conch/runtime/repository/scan.hpp"

#include <map>
#include <system_error>

namespace conch::runtime::repository {

namespace fs = std::filesystem;

namespace {

// Where one model name could come from: directories mapped to it, which
// win, and unmapped directories of that name.
struct candidates {
  std::vector<model_location> mapped;
  std::vector<model_location> unmapped;

  const std::vector<model_location>& winners() const {
    return mapped.empty() ? unmapped : mapped;
  }
};

using by_name_map = std::map<std::string, candidates>;

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && !ec;
}

// Checks that `repository` can be listed, in the words Triton uses for a
// missing path (its Python tests match "failed to stat file <p>").
status check_repository(const fs::path& repository) {
  std::error_code ec;
  auto st = fs::status(repository, ec);
  if (ec || !fs::exists(st))
    return internal_error("failed to stat file " + repository.string());
  if (!fs::is_directory(st))
    return invalid_argument("model repository path '" + repository.string()
                            + "' is not a directory");
  return status::ok();
}

// Adds the directories `root` maps to other names, when they exist.
void add_mapped(const repository_root& root, by_name_map& by_name) {
  for (const auto& [directory, name] : root.name_mapping) {
    if (!is_valid_model_name(directory) || !is_valid_model_name(name))
      continue;
    auto path = root.path / directory;
    if (is_dir(path))
      by_name[name].mapped.push_back(model_location{name, root.path, path, true});
  }
}

// Adds every model directory of `root` to `by_name`. Entries that vanish or
// cannot be stat'ed while listing are skipped, not reported: the next scan
// sees the settled state.
status list_models(const repository_root& root, by_name_map& by_name) {
  const auto& repository = root.path;
  std::error_code ec;
  fs::directory_iterator it(repository, ec);
  if (ec)
    return internal_error("failed to list model repository '" + repository.string()
                          + "': " + ec.message());
  for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    std::error_code entry_ec;
    if (!is_valid_model_name(name) || root.name_mapping.count(name) != 0
        || !it->is_directory(entry_ec) || entry_ec)
      continue;
    by_name[name].unmapped.push_back(model_location{name, repository, it->path()});
  }
  if (ec)
    return internal_error("failed to list model repository '" + repository.string()
                          + "': " + ec.message());
  add_mapped(root, by_name);
  return status::ok();
}

} // namespace

bool is_valid_model_name(const std::string& name) {
  return !name.empty() && name.front() != '.' && name.find('/') == std::string::npos
         && name.find('\\') == std::string::npos && name.find('\0') == std::string::npos;
}

scan_result scan(const std::vector<repository_root>& roots) {
  scan_result out;
  by_name_map by_name;
  for (const auto& root : roots) {
    auto st = check_repository(root.path);
    if (st.is_ok())
      st = list_models(root, by_name);
    if (!st.is_ok())
      out.errors.emplace_back(root.path.string(), std::move(st));
  }
  // std::map iterates in name order, so both lists come out sorted.
  for (auto& [name, found] : by_name) {
    const auto& locations = found.winners();
    if (locations.size() == 1) {
      out.models.push_back(locations.front());
      continue;
    }
    out.errors.emplace_back(
      name, invalid_argument("model '" + name + "' appears in multiple repositories"));
  }
  return out;
}

scan_result scan(const std::vector<fs::path>& repositories) {
  return scan(roots_of(repositories));
}

std::vector<model_location> find_all(const std::vector<repository_root>& roots,
                                     const std::string& name) {
  candidates found;
  if (!is_valid_model_name(name))
    return {};
  for (const auto& root : roots) {
    for (const auto& [directory, mapped_name] : root.name_mapping)
      if (mapped_name == name && is_valid_model_name(directory)
          && is_dir(root.path / directory))
        found.mapped.push_back(model_location{name, root.path, root.path / directory, true});
    // A mapped directory is known by its mapped name only.
    if (root.name_mapping.count(name) == 0 && is_dir(root.path / name))
      found.unmapped.push_back(model_location{name, root.path, root.path / name});
  }
  return found.winners();
}

std::vector<model_location> find_all(const std::vector<fs::path>& repositories,
                                     const std::string& name) {
  return find_all(roots_of(repositories), name);
}

std::optional<model_location> find(const std::vector<repository_root>& roots,
                                   const std::string& name) {
  auto all = find_all(roots, name);
  if (all.size() != 1)
    return std::nullopt;
  return std::move(all.front());
}

std::optional<model_location> find(const std::vector<fs::path>& repositories,
                                   const std::string& name) {
  return find(roots_of(repositories), name);
}

} // namespace conch::runtime::repository
