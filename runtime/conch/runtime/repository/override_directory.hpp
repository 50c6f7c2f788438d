#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/result.hpp"

namespace conch::runtime::repository {

/// Materialises a model given entirely by a load request: creates a fresh
/// directory `base/<model>-<unique>/<model>/`, writes `config.pbtxt` (the
/// protobuf text of `config_json`, a ModelConfig in protobuf JSON) and every
/// file of `files`, whose keys are load parameter names `file:<version>/<path>`
/// and whose values are the raw bytes. Returns the model directory.
///
/// Only this process's user can read what it writes: `base` must be (or
/// becomes) a directory of this user, not a link, and every directory is
/// made with mode 0700 and every file with 0600, whatever the umask.
///
/// INVALID_ARG, naming the key, for a key without the "file:" prefix, with an
/// absolute path, a ".." component, no version directory or no file name, or
/// whose directory is also given as a file; for an empty or malformed
/// `config_json`; and for an unusable model name. INTERNAL worded as
/// Triton's "failed to load '<model>', failed to poll from model repository:
/// ..." for what the file system cannot hold (a path component longer than
/// NAME_MAX, a path longer than PATH_MAX) and for write failures.
/// Nothing is left behind on failure. Never throws.
result<std::filesystem::path> write_override_directory(
  const std::filesystem::path& base, const std::string& model_name,
  const std::string& config_json,
  const std::vector<std::pair<std::string, std::string>>& files);

/// Removes a directory made by `write_override_directory` (pass the path it
/// returned), together with its unique parent. Does nothing for a path that
/// does not look like one. Never throws.
void remove_override_directory(const std::filesystem::path& model_directory) noexcept;

} // namespace conch::runtime::repository
