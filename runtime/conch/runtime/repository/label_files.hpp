#pragma once

#include <filesystem>
#include <memory>

#include "conch/runtime/output_labels.hpp"
#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::runtime::repository {

/// Reads the label file of every output of `config` that names one
/// (`label_filename`, relative to the model directory `model_dir`): one label
/// per line, line i naming class i. nullptr when no output has a label file;
/// INVALID_ARG naming the output and the file when one cannot be read, or
/// when its name leads out of `model_dir` (an absolute path, a ".."
/// component, or a symbolic link that resolves outside).
result<std::shared_ptr<const output_labels>> load_output_labels(
  const inference::ModelConfig& config, const std::filesystem::path& model_dir);

} // namespace conch::runtime::repository
