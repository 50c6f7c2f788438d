#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "conch/actors/repository/repository_messages.hpp"
#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/output_labels.hpp"
#include "conch/runtime/tensor_reshape.hpp"
#include "conch/runtime/repository/model_config_loader.hpp"
#include "conch/runtime/repository/repository_root.hpp"
#include "conch/runtime/repository/scan.hpp"

namespace conch::actors {

/// What loading one model needs to know before its schedulers start.
struct load_request {
  std::vector<runtime::repository::repository_root> roots;
  std::string name;
  load_parameters_ptr params;
  /// Where override directories (load with file contents) are written.
  std::filesystem::path override_base;
  runtime::repository::config_load_options options;
};

/// What the disk says about a model to load: its location, its completed
/// and validated configuration, its backend, labels, versions and
/// fingerprint, or the error that stops the load.
struct prepared_load {
  /// OK, or why the model cannot load ("failed to load '<name>': ...").
  runtime::status error;
  /// Where the model is; its path is empty when no model of that name
  /// exists (no directory in any repository, no file override), and a load
  /// that failed then leaves no trace of the name.
  runtime::repository::model_location location;
  /// The override directory this load wrote; empty without one. Removed
  /// again when the load fails here.
  std::filesystem::path override_dir;
  std::shared_ptr<const inference::ModelConfig> config;
  runtime::backends::model_factory factory;
  std::shared_ptr<const runtime::output_labels> labels;
  std::shared_ptr<const runtime::tensor_reshapes> reshapes;
  std::vector<int64_t> versions;
  uint64_t fingerprint = 0;
};

/// Reads everything a load needs from disk, completing the configuration
/// (which may run a backend's Python). Blocks: runs on the repository's
/// worker thread, never on the actor system's.
prepared_load prepare_load(const load_request& request);

} // namespace conch::actors
