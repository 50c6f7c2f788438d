#include "conch/transports/http/cloud/model_folder.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>
#include <vector>

namespace conch::transports::http::cloud {

namespace fs = std::filesystem;

namespace {

// Larger config.pbtxt files are not read to find the ensemble.
constexpr std::uintmax_t max_config_bytes = 16u << 20;

bool is_ensemble(const fs::path& model_dir) {
  // Only a plain file (or a link to one) of sane size: a FIFO would block
  // the read, a link to /dev/zero would never end it.
  std::error_code ec;
  const auto file = model_dir / "config.pbtxt";
  if (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) > max_config_bytes || ec)
    return false;
  std::ifstream in{file};
  std::string text{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  // `platform:`, any white space, then `"ensemble"`, anywhere in the text.
  constexpr std::string_view key = "platform:";
  constexpr std::string_view ensemble = "\"ensemble\"";
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
    auto value = text.find_first_not_of(" \t\n\v\f\r", at + key.size());
    if (value != std::string::npos && text.compare(value, ensemble.size(), ensemble) == 0)
      return true;
  }
  return false;
}

// True for /dev, /proc, /sys and what lies below them. `path` is absolute
// and resolved, so its second component is the top-level folder.
bool system_path(const fs::path& path) {
  auto part = path.begin();
  if (part == path.end() || ++part == path.end())
    return false;
  return *part == "dev" || *part == "proc" || *part == "sys";
}

// Triton's text. Where the url resolves to is not said: the client may
// not know the server's links, and need not learn them.
runtime::status refuse_system_path(const std::string& url, const fs::path& /*resolved*/) {
  return runtime::invalid_argument(
    "Invalid URL: " + url + ". \"url\" property value cannot start with /dev/, /proc/, or /sys/.");
}

// `url` made absolute with every symbolic link and "." or ".." resolved, as
// far as it exists, so that no link can lead the check below astray.
runtime::result<fs::path> resolve_url(const std::string& url) {
  if (url.find('\0') != std::string::npos)
    return runtime::invalid_argument("Invalid URL: the \"url\" property contains a NUL byte.");
  std::error_code ec;
  auto path = fs::absolute(fs::path{url}, ec);
  if (!ec)
    path = fs::weakly_canonical(path, ec);
  if (ec)
    return runtime::invalid_argument("Invalid URL: " + url + ". " + ec.message());
  // "/opt/ml/models/x/model/" names the folder "model".
  if (path.has_parent_path() && path.filename().empty())
    path = path.parent_path();
  return path;
}

// OK unless the model directory `model_dir` of the repository the url names
// is a link into a system folder.
runtime::status check_model_dir(const std::string& url, const fs::path& model_dir) {
  std::error_code ec;
  auto resolved = fs::weakly_canonical(model_dir, ec);
  if (ec)
    return runtime::invalid_argument("Invalid URL: " + url + ". " + ec.message());
  if (system_path(resolved))
    return refuse_system_path(url, resolved);
  return runtime::status::ok();
}

} // namespace

runtime::result<model_folder> locate_model_folder(const std::string& url) {
  auto resolved = resolve_url(url);
  if (!resolved)
    return resolved.error();
  const auto& path = *resolved;
  if (system_path(path))
    return refuse_system_path(url, path);
  std::error_code ec;
  if (fs::is_regular_file(path / "config.pbtxt", ec))
    return model_folder{path.parent_path().string(), path.filename().string()};
  if (!fs::is_directory(path, ec))
    return model_folder{path.string(), ""};
  std::vector<fs::path> models;
  std::vector<fs::path> ensembles;
  // The error_code forms throughout: a folder that changes while it is read
  // must not throw on the loop thread.
  for (fs::directory_iterator it{path, ec}, end; !ec && it != end; it.increment(ec)) {
    const auto& entry = *it;
    std::error_code entry_ec; // a dangling link is skipped, not the end
    if (!entry.is_directory(entry_ec))
      continue;
    if (auto st = check_model_dir(url, entry.path()); !st.is_ok())
      return st;
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
