#pragma once

#include <filesystem>
#include <string>

#include "conch/runtime/model_config/normalize.hpp"
#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// Reads, normalises and validates the configuration file at `path` of the
/// model whose repository folder is named `directory_name`: the usual way to
/// turn a config.pbtxt into a configuration ready to serve. Every error
/// message names `path` (normalisation errors get it as a prefix).
result<inference::ModelConfig> load_file(const std::filesystem::path& path,
                                         const std::string& directory_name,
                                         const normalize_options& options = {});

} // namespace conch::runtime::model_config
