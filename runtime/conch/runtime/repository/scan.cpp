#include "conch/runtime/repository/scan.hpp"

#include <algorithm>
#include <map>
#include <system_error>

namespace conch::runtime::repository {

namespace fs = std::filesystem;

namespace {

bool is_hidden(const std::string& name) {
  return name.empty() || name.front() == '.';
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

// Adds every model directory of `repository` to `by_name`. Entries that
// vanish or cannot be stat'ed while listing are skipped, not reported: the
// next scan sees the settled state.
status list_models(const fs::path& repository,
                   std::map<std::string, std::vector<model_location>>& by_name) {
  std::error_code ec;
  fs::directory_iterator it(repository, ec);
  if (ec)
    return internal_error("failed to list model repository '" + repository.string()
                          + "': " + ec.message());
  for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    auto name = it->path().filename().string();
    std::error_code entry_ec;
    if (is_hidden(name) || !it->is_directory(entry_ec) || entry_ec)
      continue;
    by_name[name].push_back(model_location{name, repository, it->path()});
  }
  if (ec)
    return internal_error("failed to list model repository '" + repository.string()
                          + "': " + ec.message());
  return status::ok();
}

bool is_valid_model_name(const std::string& name) {
  return !is_hidden(name) && name.find('/') == std::string::npos
         && name.find('\\') == std::string::npos && name.find('\0') == std::string::npos;
}

} // namespace

scan_result scan(const std::vector<fs::path>& repositories) {
  scan_result out;
  std::map<std::string, std::vector<model_location>> by_name;
  for (const auto& repository : repositories) {
    auto st = check_repository(repository);
    if (st.is_ok())
      st = list_models(repository, by_name);
    if (!st.is_ok())
      out.errors.emplace_back(repository.string(), std::move(st));
  }
  // std::map iterates in name order, so both lists come out sorted.
  for (auto& [name, locations] : by_name) {
    if (locations.size() == 1) {
      out.models.push_back(std::move(locations.front()));
      continue;
    }
    out.errors.emplace_back(
      name, invalid_argument("model '" + name + "' appears in multiple repositories"));
  }
  return out;
}

std::vector<model_location> find_all(const std::vector<fs::path>& repositories,
                                     const std::string& name) {
  std::vector<model_location> out;
  if (!is_valid_model_name(name))
    return out;
  for (const auto& repository : repositories) {
    auto path = repository / name;
    std::error_code ec;
    if (fs::is_directory(path, ec) && !ec)
      out.push_back(model_location{name, repository, std::move(path)});
  }
  return out;
}

std::optional<model_location> find(const std::vector<fs::path>& repositories,
                                   const std::string& name) {
  auto all = find_all(repositories, name);
  if (all.size() != 1)
    return std::nullopt;
  return std::move(all.front());
}

} // namespace conch::runtime::repository
