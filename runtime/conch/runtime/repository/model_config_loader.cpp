#include "conch/runtime/repository/model_config_loader.hpp"

#include <array>
#include <exception>
#include <system_error>
#include <utility>
#include <vector>

#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/model_config/json.hpp"
#include "conch/runtime/model_config/normalize.hpp"
#include "conch/runtime/model_config/parse.hpp"
#include "conch/runtime/model_config/validate.hpp"
#include "conch/runtime/model_config/validate_paths.hpp"
#include "conch/runtime/repository/versions.hpp"

namespace conch::runtime::repository {

namespace fs = std::filesystem;
namespace mc = conch::runtime::model_config;

namespace {

/// A default model file name and the backend it implies.
struct default_file {
  const char* file_name;
  const char* backend;
};

constexpr std::array<default_file, 2> default_files{{
  {"model.py", "python"},
  {"model.onnx", "onnxruntime"},
}};

// Makes sure an error names the source of the configuration: the parser and
// validator usually do, the backend's completer may not.
status naming(status st, const std::string& source) {
  if (st.is_ok() || st.message().find(source) != std::string::npos)
    return st;
  return st.with_prefix(source + ": ");
}

// The backend a file name implies, by its extension.
std::optional<std::string> backend_of(const fs::path& file_name) {
  for (const auto& candidate : default_files)
    if (file_name.extension() == fs::path(candidate.file_name).extension())
      return candidate.backend;
  return std::nullopt;
}

// The backend implied by the model file of the newest version directory that
// has one: the configured default_model_filename, else a default file name.
std::optional<std::string> guess_backend(const inference::ModelConfig& config,
                                         const fs::path& model_path) {
  std::vector<std::string> names;
  if (!config.default_model_filename().empty())
    names.push_back(config.default_model_filename());
  else
    for (const auto& candidate : default_files)
      names.emplace_back(candidate.file_name);
  auto versions = version_directories(model_path);
  for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
    for (const auto& name : names) {
      std::error_code ec;
      if (fs::exists(model_path / std::to_string(*v) / name, ec))
        if (auto backend = backend_of(name))
          return backend;
    }
  }
  return std::nullopt;
}

// Reads the configuration from the override, the file, or (when allowed) a
// minimal one; `config_found` tells the caller whether one existed.
result<inference::ModelConfig> read_config(const model_location& location,
                                           const config_load_options& options,
                                           const std::optional<std::string>& override_json,
                                           const std::string& file, bool& config_found) {
  config_found = true;
  if (override_json) {
    auto parsed = mc::from_json(*override_json);
    if (!parsed)
      return invalid_argument("Invalid config override: " + parsed.error().message());
    return parsed;
  }
  std::error_code ec;
  if (fs::exists(fs::path(file), ec))
    return mc::read_file(fs::path(file));
  config_found = false;
  if (options.strict_model_config)
    return invalid_argument("model configuration file '" + file + "' of model '"
                            + location.name + "' does not exist (strict_model_config is on)");
  inference::ModelConfig config;
  config.set_name(location.name);
  return config;
}

// Runs the backend's completer, if the backend is known and has one. An
// unknown backend is left for the load to report with its own message.
status complete(inference::ModelConfig& config, const fs::path& model_path,
                const std::string& backend_directory) {
  auto backend = backends::registry::global().resolve(config, backend_directory);
  if (!backend || !backend->complete_config)
    return status::ok();
  try {
    return backend->complete_config(config, model_path);
  } catch (const std::exception& e) {
    // The completer is plug-in code; its exceptions stop here.
    return internal_error(std::string("auto-complete of the configuration failed: ") + e.what());
  } catch (...) {
    return internal_error("auto-complete of the configuration failed");
  }
}

} // namespace

result<inference::ModelConfig> load_model_config(const model_location& location,
                                                 const config_load_options& options,
                                                 const std::optional<std::string>& override_json) {
  const std::string file = override_json ? "config override of model '" + location.name + "'"
                                         : (location.path / "config.pbtxt").string();
  bool config_found = true;
  auto read = read_config(location, options, override_json, file, config_found);
  if (!read) // An override's error already says "Invalid config override".
    return override_json ? read.error() : naming(read.error(), file);
  inference::ModelConfig config = std::move(*read);
  // Before anything opens a file the configuration names: the guess below
  // and a backend's auto-complete (which imports model.py) do.
  CONCH_RUNTIME_RETURN_IF_ERROR(naming(mc::validate_paths(config, file), file));
  // A mapped model is known by its mapped name, whatever its file says.
  if (location.mapped)
    config.set_name(location.name);
  if (config.backend().empty() && config.platform().empty()) {
    if (auto backend = guess_backend(config, location.path))
      config.set_backend(*backend);
    else if (!config_found)
      return invalid_argument("model configuration file '" + file + "' does not exist and no "
                              "model.py or model.onnx was found in a version directory of '"
                              + location.name + "' to infer the backend from");
  }
  if (!options.strict_model_config)
    CONCH_RUNTIME_RETURN_IF_ERROR(naming(complete(config, location.path, options.backend_directory), file));
  mc::normalize_options normalize{};
  normalize.gpu_count = options.gpu_count;
  CONCH_RUNTIME_RETURN_IF_ERROR(naming(mc::normalize(config, location.name, normalize), file));
  CONCH_RUNTIME_RETURN_IF_ERROR(naming(mc::validate(config, file), file));
  return config;
}

} // namespace conch::runtime::repository
