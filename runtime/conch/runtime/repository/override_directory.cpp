#include "conch/runtime/repository/override_directory.hpp"

#include <climits>
#include <string_view>
#include <system_error>

#include <google/protobuf/text_format.h>

#include "conch/runtime/model_config/json.hpp"
#include "conch/runtime/repository/private_files.hpp"

namespace conch::runtime::repository {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view file_prefix = "file:";

bool is_usable_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos
         && name.find('\0') == std::string::npos;
}

// How Triton reports a model directory it could not write: the load fails
// as if the repository could not be polled.
status poll_failure(const std::string& model_name, const std::string& why) {
  return internal_error("failed to load '" + model_name
                        + "', failed to poll from model repository: " + why);
}

// The path a `file:` key names, relative to the model directory, or the
// reason it cannot be used.
result<fs::path> relative_file_path(const std::string& model_name, const std::string& key) {
  if (key.compare(0, file_prefix.size(), file_prefix) != 0)
    return invalid_argument("Unrecognized load parameter '" + key
                            + "': model files must be given as 'file:<version>/<path>'");
  // As Triton joins it: under the model directory, leading slashes and all
  // ("file:/1/model.py" is "1/model.py").
  auto text = key.substr(file_prefix.size());
  text.erase(0, text.find_first_not_of('/'));
  fs::path rel(text);
  if (rel.empty() || rel.has_root_path() || text.find('\0') != std::string::npos)
    return invalid_argument("Invalid file parameter '" + key + "': the path must be relative");
  size_t components = 0;
  for (const auto& part : rel) {
    if (part == "..")
      return invalid_argument("Invalid file parameter '" + key + "' with normalized path '"
                              + rel.lexically_normal().string()
                              + "' must stay within model directory.");
    // The file system could not hold it: an I/O failure, as in Triton.
    if (part.native().size() > NAME_MAX)
      return poll_failure(model_name, "Invalid file path '" + key + "': a path component is "
                                        "longer than " + std::to_string(NAME_MAX) + " bytes");
    ++components;
  }
  if (text.size() > PATH_MAX)
    return poll_failure(model_name, "Invalid file path '" + key + "': the path is longer than "
                                      + std::to_string(PATH_MAX) + " bytes");
  if (components < 2 || *rel.begin() == "." || !rel.has_filename())
    return invalid_argument("Invalid file parameter '" + key
                            + "': expected 'file:<version>/<path>'");
  return rel;
}

// Writes one file below `model_dir`, its directories private like it.
status write_file(const std::string& model_name, const fs::path& model_dir, const fs::path& rel,
                  const std::string& bytes, const std::string& key) {
  auto st = make_private_subdirectories(model_dir, rel.parent_path());
  if (st.code() == errc::invalid_argument)
    return invalid_argument("Invalid file parameter '" + key + "': " + st.message());
  if (!st.is_ok())
    return poll_failure(model_name, st.message());
  st = write_private_file(model_dir / rel, bytes);
  return st.is_ok() ? st : poll_failure(model_name, st.message() + " for '" + key + "'");
}

status write_config(const std::string& model_name, const fs::path& model_dir,
                    const std::string& config_json) {
  if (config_json.empty())
    return invalid_argument("Load parameter 'config' must be specified for model file override");
  auto config = model_config::from_json(config_json);
  if (!config)
    return invalid_argument("Invalid config override: " + config.error().message());
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(*config, &text))
    return internal_error("failed to print the override configuration as text");
  return write_file(model_name, model_dir, "config.pbtxt", text, "config");
}

status write_contents(const std::string& model_name, const fs::path& model_dir,
                      const std::string& config_json,
                      const std::vector<std::pair<std::string, std::string>>& files) {
  // Check every key before writing anything, so a bad key costs no I/O.
  std::vector<fs::path> paths;
  for (const auto& [key, bytes] : files) {
    auto rel = relative_file_path(model_name, key);
    if (!rel)
      return rel.error();
    paths.push_back(std::move(*rel));
  }
  CONCH_RUNTIME_RETURN_IF_ERROR(write_config(model_name, model_dir, config_json));
  for (size_t i = 0; i < files.size(); ++i)
    CONCH_RUNTIME_RETURN_IF_ERROR(
      write_file(model_name, model_dir, paths[i], files[i].second, files[i].first));
  return status::ok();
}

// The private directory `base/<model>-XXXXXX` and the model directory in it,
// both mode 0700 so that no other user can read the files.
result<fs::path> make_model_directory(const fs::path& base, const std::string& model_name) {
  auto st = ensure_private_directory(base);
  if (!st.is_ok())
    return poll_failure(model_name, st.message());
  auto unique = make_private_temp_directory(base, model_name + "-");
  if (!unique)
    return poll_failure(model_name, unique.error().message());
  auto model_dir = *unique / model_name;
  st = make_private_subdirectories(*unique, model_name);
  if (!st.is_ok()) {
    std::error_code ec;
    fs::remove_all(*unique, ec);
    return poll_failure(model_name, st.message());
  }
  return model_dir;
}

} // namespace

result<fs::path> write_override_directory(
  const fs::path& base, const std::string& model_name, const std::string& config_json,
  const std::vector<std::pair<std::string, std::string>>& files) {
  if (!is_usable_name(model_name))
    return invalid_argument("invalid model name '" + model_name + "' for a model file override");
  try {
    auto model_dir = make_model_directory(base, model_name);
    if (!model_dir)
      return model_dir.error();
    auto st = write_contents(model_name, *model_dir, config_json, files);
    if (!st.is_ok()) {
      std::error_code ec;
      fs::remove_all(model_dir->parent_path(), ec);
      return st;
    }
    return *model_dir;
  } catch (const std::exception& e) {
    // Only allocation failures can throw here.
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
