#pragma once

#include <string>

#include "conch/runtime/status.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// Checks that every file name of `config` stays inside the folder it is
/// read from: default_model_filename and cc_model_filenames (the version
/// directory), output label_filename (the model directory), model_warmup
/// input_data_file (warmup/) and sequence_batching initial_state data_file
/// (initial_state/). Each must be relative, without a ".." component and
/// without a NUL byte (see `check_relative_name`). Runs before anything
/// reads the model's files (a backend's auto-complete included). The first
/// problem is INVALID_ARG worded "<file>: <field>: <problem>". Never throws.
status validate_paths(const inference::ModelConfig& config, const std::string& file);

} // namespace conch::runtime::model_config
