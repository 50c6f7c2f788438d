#include "conch/runtime/repository/override_directory.hpp"

#include <atomic>
#include <fstream>
#include <random>
#include <system_error>

#include <google/protobuf/text_format.h>

#include "conch/runtime/model_config/json.hpp"

namespace conch::runtime::repository {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view file_prefix = "file:";

bool is_usable_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos
         && name.find('\0') == std::string::npos;
}

// The path a `file:` key names, relative to the model directory, or the
// reason it cannot be used.
result<fs::path> relative_file_path(const std::string& key) {
  if (key.compare(0, file_prefix.size(), file_prefix) != 0)
    return invalid_argument("Unrecognized load parameter '" + key
                            + "': model files must be given as 'file:<version>/<path>'");
  fs::path rel(key.substr(file_prefix.size()));
  if (rel.empty() || rel.has_root_path())
    return invalid_argument("Invalid file parameter '" + key + "': the path must be relative");
  size_t components = 0;
  for (const auto& part : rel) {
    if (part == "..")
      return invalid_argument("Invalid file parameter '" + key
                              + "': the path must stay within the model directory");
    ++components;
  }
  if (components < 2 || *rel.begin() == "." || !rel.has_filename())
    return invalid_argument("Invalid file parameter '" + key
                            + "': expected 'file:<version>/<path>'");
  return rel;
}

// A random token for directory names, so that two processes sharing `base`
// cannot collide even with the same counter value.
std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  std::random_device device;
  std::uniform_int_distribution<uint64_t> dist;
  return std::to_string(++counter) + "-" + std::to_string(dist(device) % 1000000000ull);
}

result<fs::path> make_unique_directory(const fs::path& base, const std::string& model_name) {
  std::error_code ec;
  fs::create_directories(base, ec);
  if (ec)
    return internal_error("failed to create '" + base.string() + "': " + ec.message());
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto dir = base / (model_name + "-" + unique_suffix());
    if (fs::create_directory(dir, ec))
      return dir;
    if (ec)
      return internal_error("failed to create '" + dir.string() + "': " + ec.message());
  }
  return internal_error("failed to create a unique directory under '" + base.string() + "'");
}

status write_bytes(const fs::path& file, const std::string& bytes, const std::string& what) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec)
    return invalid_argument("Invalid file parameter '" + what + "': " + ec.message());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    return internal_error("failed to write '" + file.string() + "' for '" + what + "'");
  return status::ok();
}

status write_config(const fs::path& model_dir, const std::string& config_json) {
  if (config_json.empty())
    return invalid_argument("Load parameter 'config' must be specified for model file override");
  auto config = model_config::from_json(config_json);
  if (!config)
    return invalid_argument("Invalid config override: " + config.error().message());
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(*config, &text))
    return internal_error("failed to print the override configuration as text");
  return write_bytes(model_dir / "config.pbtxt", text, "config");
}

status write_contents(const fs::path& model_dir, const std::string& config_json,
                      const std::vector<std::pair<std::string, std::string>>& files) {
  // Check every key before writing anything, so a bad key costs no I/O.
  std::vector<fs::path> paths;
  for (const auto& [key, bytes] : files) {
    auto rel = relative_file_path(key);
    if (!rel)
      return rel.error();
    paths.push_back(std::move(*rel));
  }
  CONCH_RUNTIME_RETURN_IF_ERROR(write_config(model_dir, config_json));
  for (size_t i = 0; i < files.size(); ++i)
    CONCH_RUNTIME_RETURN_IF_ERROR(write_bytes(model_dir / paths[i], files[i].second,
                                              files[i].first));
  return status::ok();
}

} // namespace

result<fs::path> write_override_directory(
  const fs::path& base, const std::string& model_name, const std::string& config_json,
  const std::vector<std::pair<std::string, std::string>>& files) {
  if (!is_usable_name(model_name))
    return invalid_argument("invalid model name '" + model_name + "' for a model file override");
  try {
    auto unique = make_unique_directory(base, model_name);
    if (!unique)
      return unique.error();
    auto model_dir = *unique / model_name;
    auto st = write_contents(model_dir, config_json, files);
    if (!st.is_ok()) {
      std::error_code ec;
      fs::remove_all(*unique, ec);
      return st;
    }
    return model_dir;
  } catch (const std::exception& e) {
    // Only allocation failures and std::random_device can throw here.
    return internal_error(std::string("failed to write the model override: ") + e.what());
  }
}

void remove_override_directory(const fs::path& model_directory) noexcept {
  try {
    auto parent = model_directory.parent_path();
    auto expected = model_directory.filename().string() + "-";
    // Only a parent named "<model>-<unique>" was made by us; refusing others
    // keeps a wrong argument from deleting an unrelated tree.
    if (model_directory.filename().empty()
        || parent.filename().string().compare(0, expected.size(), expected) != 0)
      return;
    std::error_code ec;
    fs::remove_all(parent, ec);
  } catch (...) {
    // Removal is best effort; a leftover temporary directory is harmless.
  }
}

} // namespace conch::runtime::repository
