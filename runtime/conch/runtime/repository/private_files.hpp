#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "conch/runtime/result.hpp"
#include "conch/runtime/status.hpp"

namespace conch::runtime::repository {

/// Makes `dir` a directory only this process's user can enter: creates it
/// (and its missing parents) with mode 0700, or accepts an existing one that
/// is a directory, not a symbolic link, and owned by this user, and sets its
/// mode to 0700. Modes are set explicitly, whatever the umask. INTERNAL
/// naming `dir` otherwise. Never throws.
status ensure_private_directory(const std::filesystem::path& dir);

/// Creates a new directory `parent/<prefix>XXXXXX` (six random characters)
/// with mode 0700 and returns it. INTERNAL when it cannot. Never throws.
result<std::filesystem::path> make_private_temp_directory(const std::filesystem::path& parent,
                                                          const std::string& prefix);

/// Creates the directories of the relative path `rel` below `root`, each
/// with mode 0700; existing ones are kept. INVALID_ARG when a component
/// exists as something other than a directory (a file or a link), INTERNAL
/// for other failures. Never throws.
status make_private_subdirectories(const std::filesystem::path& root,
                                   const std::filesystem::path& rel);

/// Writes `bytes` to `file`, created with mode 0600 (or truncated and set to
/// 0600); a symbolic link at `file` is refused, never followed. INTERNAL
/// naming the file when writing fails. Never throws.
status write_private_file(const std::filesystem::path& file, std::string_view bytes);

} // namespace conch::runtime::repository
