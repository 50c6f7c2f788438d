#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "conch/runtime/backends/backend.hpp"

namespace conch::runtime::backends {

/// Creates the backend_model of one model version.
using model_factory = std::function<result<std::unique_ptr<backend_model>>(const model_context&)>;

/// Completes a configuration from what the backend knows of the model (used
/// when strict_model_config is off). May be empty.
using config_completer =
  std::function<status(inference::ModelConfig& config, const std::filesystem::path& model_path)>;

/// Finds a backend named `name` among the files of a backend directory
/// (Triton's `--backend-directory`): `<directory>/<name>/...`. Nothing when
/// the directory holds no backend of that name.
using directory_resolver = std::function<std::optional<struct backend_entry>(
  const std::string& name, const std::filesystem::path& directory)>;

/// A backend: its name, how it loads models and how it completes configs.
struct backend_entry {
  std::string name;
  model_factory factory;
  config_completer complete_config;
};

/// The backends known to a process, by name, and the platform names that
/// stand for them. Thread-safe. Adding a backend is one `add` call.
class registry {
 public:
  /// The process-wide registry, holding the built-in backends and the
  /// platform map. Never destroyed: backends registered by an extension may
  /// hold objects that must not be released during process exit.
  static registry& global();

  /// Adds or replaces a backend.
  void add(backend_entry entry);

  /// Maps a platform name ("onnxruntime_onnx") to a backend name.
  void add_platform(std::string platform, std::string backend);

  /// The backend called `name`.
  std::optional<backend_entry> find(const std::string& name) const;

  /// Adds a way to find backends in a backend directory (the python
  /// extension adds Triton's python-based backends, `<name>/model.py`).
  void add_directory_resolver(directory_resolver resolver);

  /// The backend a configuration asks for: its `backend` field, else the
  /// backend its `platform` maps to. A backend found in `backend_directory`
  /// (when given) comes first, as Triton looks there before anywhere else;
  /// then the registered ones. INVALID_ARG when the configuration names
  /// neither, when the platform is unknown, or when no backend of that name is
  /// found ("unable to find backend 'x'").
  result<backend_entry> resolve(const inference::ModelConfig& config,
                                const std::filesystem::path& backend_directory = {}) const;

  /// The backend name a platform maps to, if any.
  std::optional<std::string> backend_for_platform(const std::string& platform) const;

  /// Every backend name, sorted.
  std::vector<std::string> names() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, backend_entry> backends_;
  std::map<std::string, std::string> platforms_;
  std::vector<directory_resolver> resolvers_;
};

/// Registers identity, add_sub, repeat and ensemble (with platform "ensemble";
/// idempotent). Called by registry::global().
void register_builtin_backends(registry& r);

} // namespace conch::runtime::backends
