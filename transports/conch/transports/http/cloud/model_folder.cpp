#include "conch/transports/http/cloud/model_folder.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <system_error>
#include <vector>

namespace conch::transports::http::cloud {

namespace fs = std::filesystem;

namespace {

bool is_ensemble(const fs::path& model_dir) {
  std::ifstream in{model_dir / "config.pbtxt"};
  std::string text{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  static const std::regex ensemble{R"(platform:\s*"ensemble")"};
  return std::regex_search(text, ensemble);
}

bool system_path(const std::string& path) {
  for (const char* prefix : {"/dev/", "/proc/", "/sys/"})
    if (path.rfind(prefix, 0) == 0 || path + "/" == prefix)
      return true;
  return false;
}

} // namespace

runtime::result<model_folder> locate_model_folder(const std::string& url) {
  std::error_code ec;
  auto path = fs::absolute(fs::path{url}, ec).lexically_normal();
  if (ec)
    return runtime::invalid_argument("Invalid URL: " + url + ". " + ec.message());
  // "/opt/ml/models/x/model/" names the folder "model".
  if (path.has_parent_path() && path.filename().empty())
    path = path.parent_path();
  if (system_path(path.string()))
    return runtime::invalid_argument(
      "Invalid URL: " + url + ". \"url\" property value cannot start with /dev/, /proc/, or /sys/.");
  if (fs::is_regular_file(path / "config.pbtxt", ec))
    return model_folder{path.parent_path().string(), path.filename().string()};
  if (!fs::is_directory(path, ec))
    return model_folder{path.string(), ""};
  std::vector<fs::path> models;
  std::vector<fs::path> ensembles;
  for (const auto& entry : fs::directory_iterator{path, ec}) {
    if (!entry.is_directory(ec))
      continue;
    models.push_back(entry.path());
    if (is_ensemble(entry.path()))
      ensembles.push_back(entry.path());
  }
  if (ensembles.size() == 1)
    return model_folder{path.string(), ensembles.front().filename().string()};
  if (models.size() == 1)
    return model_folder{path.string(), models.front().filename().string()};
  if (models.empty())
    return runtime::invalid_argument("failed to load model from '" + path.string()
                                     + "': the folder holds neither a config.pbtxt nor a model "
                                       "directory");
  return runtime::invalid_argument(
    "failed to load model from '" + path.string() + "': the folder holds "
    + std::to_string(models.size()) + " model directories and "
    + (ensembles.empty() ? std::string{"no ensemble"} : std::to_string(ensembles.size())
                                                          + " ensembles")
    + "; name one model's folder, or a folder with one ensemble and its steps");
}

} // namespace conch::transports::http::cloud
