#pragma once

#include <filesystem>
#include <string_view>

#include "conch/runtime/result.hpp"
#include "conch/runtime/status.hpp"

namespace conch::runtime {

/// Checks, without touching the file system, that `name` (a file name taken
/// from a model configuration or a request) names something below the
/// folder it is read from: relative, without a ".." component and without a
/// NUL byte. OK for an empty name (the caller's default applies). Otherwise
/// INVALID_ARG whose message says what is wrong, for the caller to prefix
/// with the field at fault. Never throws.
status check_relative_name(std::string_view name);

/// `base / name` with every symbolic link and "." or ".." component
/// resolved (the part that does not exist yet left as written), provided it
/// still lies within `base` resolved the same way. INVALID_ARG naming `name`
/// when `name` fails `check_relative_name` or resolves outside `base`
/// (through a symbolic link), INTERNAL when resolving fails. Never throws.
result<std::filesystem::path> resolve_within(const std::filesystem::path& base,
                                             std::string_view name);

/// True when `path` is `base` or lies below it, both taken as they are
/// (resolve them first). Never throws.
bool is_within(const std::filesystem::path& base, const std::filesystem::path& path) noexcept;

} // namespace conch::runtime
