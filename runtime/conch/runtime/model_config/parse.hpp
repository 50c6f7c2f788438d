#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::runtime::model_config {

/// Parses a model configuration written in protobuf text format (the content
/// of a config.pbtxt). `file` only names the source in error messages.
/// Fails with INVALID_ARG naming the file, the 1-based line and column, and
/// protobuf's description of the problem (unknown field, unknown enum name,
/// syntax error). The result is neither normalised nor validated.
result<inference::ModelConfig> parse_text(std::string_view text, const std::string& file);

/// Reads and parses the configuration file at `path`.
/// Fails with NOT_FOUND when the file does not exist, INVALID_ARG when it is
/// not a regular file or does not parse, INTERNAL when it cannot be read.
result<inference::ModelConfig> read_file(const std::filesystem::path& path);

} // namespace conch::runtime::model_config
