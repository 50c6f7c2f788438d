#pragma once

#include <optional>
#include <string>

#include "conch/runtime/repository/model_location.hpp"
#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::runtime::repository {

/// How `load_model_config` treats a model directory.
struct config_load_options {
  /// When true a model needs its config.pbtxt; when false a missing file is
  /// allowed and the backend may complete the configuration.
  bool strict_model_config = true;
  /// The number of GPUs normalisation may place KIND_AUTO/KIND_GPU groups on.
  int gpu_count = 0;
  /// Triton's backend directory, where backends are also looked up by name
  /// (python-based backends: `<directory>/<backend>/model.py`); empty: none.
  std::string backend_directory;
};

/// Reads, completes, normalises and validates the configuration of one model.
///
/// The configuration comes from `override_json` (protobuf JSON, as given to a
/// load's `config` parameter) when present, else from `<path>/config.pbtxt`.
/// Without a file and with `strict_model_config` off it starts from a
/// configuration holding only the name. When neither `backend` nor `platform`
/// is set, the backend is guessed from the model file in a version directory
/// (model.py -> python, model.onnx -> onnxruntime). A mapped location gives
/// the configuration its mapped name. With `strict_model_config`
/// off the backend's `complete_config` then runs, if it has one. Errors name
/// the file (or the override). Reads the file system; never throws.
result<inference::ModelConfig> load_model_config(
  const model_location& location, const config_load_options& options,
  const std::optional<std::string>& override_json = std::nullopt);

} // namespace conch::runtime::repository
