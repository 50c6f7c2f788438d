#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "model_config.pb.h"

namespace conch::runtime::repository {

/// The version numbers of a model: the names of its subdirectories (or
/// symbolic links to directories) that are plain non-negative decimal
/// numbers fitting an int64, sorted ascending. Like Triton, names with a
/// leading zero ("01"; "0" itself counts), a sign, other characters or too
/// many digits are ignored, as are files. Empty when the directory cannot be
/// read. Never throws.
std::vector<int64_t> version_directories(const std::filesystem::path& model_path);

/// The versions of `available` a policy asks to serve, sorted ascending:
/// latest{n} the n highest, all every one, specific those listed that exist.
/// A policy with no choice set counts as latest{1}, Triton's default.
std::vector<int64_t> select_versions(const inference::ModelVersionPolicy& policy,
                                     const std::vector<int64_t>& available);

/// The versions a `specific` policy lists that `available` lacks, in the
/// order listed, without repeats; empty for other policies. The caller
/// reports them (Triton logs "version <v> is specified for model '<m>', but
/// the version directory is not present").
std::vector<int64_t> missing_specific_versions(const inference::ModelVersionPolicy& policy,
                                               const std::vector<int64_t>& available);

} // namespace conch::runtime::repository
