// What a load reads from disk, off the actor system's threads.

#include "conch/actors/repository/repository_prepare.hpp"

#include <cxxabi.h>

#include <exception>
#include <optional>
#include <utility>

#include "conch/runtime/repository/fingerprint.hpp"
#include "conch/runtime/repository/label_files.hpp"
#include "conch/runtime/repository/override_directory.hpp"
#include "conch/runtime/repository/versions.hpp"
#include "conch/runtime/validation/model_reshapes.hpp"

namespace conch::actors {

namespace fs = std::filesystem;
namespace repo = runtime::repository;
using runtime::status;

namespace {

// Where the model lives: an override directory written from the load's file
// contents, or the model's folder in the repositories.
runtime::result<repo::model_location> locate(const std::vector<repo::repository_root>& roots,
                                             const std::string& name,
                                             const load_parameters* params,
                                             const fs::path& override_base, fs::path& override_dir) {
  if (params != nullptr && !params->files.empty()) {
    if (!params->config_json)
      return runtime::invalid_argument("failed to load '" + name
                                       + "': file overrides require a 'config' parameter");
    auto dir = repo::write_override_directory(override_base, name, *params->config_json,
                                              params->files);
    if (!dir)
      return dir.error();
    override_dir = *dir;
    return repo::model_location{name, dir->parent_path(), *dir};
  }
  // Triton polls the repository's parent for these, which holds no version
  // directories; Conch never looks there, and answers as Triton does.
  if (name == "." || name == "..")
    return runtime::invalid_argument("load failed for model '" + name
                                     + "': at least one version must be available under the "
                                       "version policy of model '" + name + "'");
  auto found = repo::find_all(roots, name);
  if (found.size() > 1)
    return runtime::invalid_argument("failed to load '" + name + "', model '" + name
                                     + "' appears in multiple repositories");
  if (found.empty())
    return runtime::internal_error("failed to load '" + name
                                   + "', failed to poll from model repository");
  return std::move(found.front());
}

prepared_load fail(prepared_load out, status st) {
  if (!out.override_dir.empty())
    repo::remove_override_directory(out.override_dir);
  out.override_dir.clear();
  out.error = std::move(st);
  return out;
}

prepared_load prepare(const load_request& request) {
  const auto& name = request.name;
  const auto prefix = "failed to load '" + name + "': ";
  prepared_load out;
  auto location = locate(request.roots, name, request.params.get(), request.override_base,
                         out.override_dir);
  if (!location)
    return fail(std::move(out), location.error());
  out.location = *location;
  std::optional<std::string> config_json;
  if (request.params && request.params->config_json && out.override_dir.empty())
    config_json = request.params->config_json;
  auto config = repo::load_model_config(*location, request.options, config_json);
  if (!config)
    return fail(std::move(out), config.error().with_prefix(prefix));
  auto backend =
    runtime::backends::registry::global().resolve(*config, request.options.backend_directory);
  if (!backend)
    return fail(std::move(out), backend.error().with_prefix(prefix));
  auto labels = repo::load_output_labels(*config, location->path);
  if (!labels)
    return fail(std::move(out), labels.error().with_prefix(prefix));
  out.versions = repo::select_versions(config->version_policy(),
                                       repo::version_directories(location->path));
  if (out.versions.empty())
    return fail(std::move(out),
                runtime::invalid_argument("failed to load '" + name
                                          + "': at least one version must be available under "
                                            "the version policy of model '" + name + "'"));
  out.fingerprint = repo::fingerprint(location->path);
  out.config = std::make_shared<const inference::ModelConfig>(std::move(*config));
  out.factory = backend->factory;
  out.labels = *labels;
  out.reshapes = runtime::validation::model_reshapes(*out.config);
  return out;
}

} // namespace

prepared_load prepare_load(const load_request& request) {
  // Nothing a backend's completion hook or the file system throws may end
  // the worker thread.
  try {
    return prepare(request);
  } catch (abi::__forced_unwind&) {
    throw; // the interpreter ends this thread at exit
  } catch (const std::exception& e) {
    prepared_load out;
    out.error = runtime::internal_error("failed to load '" + request.name + "': " + e.what());
    return out;
  } catch (...) {
    prepared_load out;
    out.error = runtime::internal_error("failed to load '" + request.name + "'");
    return out;
  }
}

} // namespace conch::actors
