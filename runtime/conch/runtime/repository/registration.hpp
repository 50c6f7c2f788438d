#pragma once

#include <filesystem>
#include <vector>

#include "conch/runtime/repository/repository_root.hpp"
#include "conch/runtime/status.hpp"

namespace conch::runtime::repository {

/// True when `a` and `b` name the same repository as registrations compare
/// them: lexically normalised, a trailing separator ignored (no symbolic
/// link is resolved).
bool same_repository(const std::filesystem::path& a, const std::filesystem::path& b);

/// Checks that `candidate` may join `roots` (Triton's rules and words):
/// - its path is an existing directory, else INVALID_ARG "failed to register
///   '<p>', repository not found";
/// - no root has that path, else ALREADY_EXISTS "model repository '<p>' has
///   already been registered";
/// - every mapping pairs valid names, and no two directories map to one
///   name, else INVALID_ARG;
/// - no other root maps a directory to a mapped name or holds an unmapped
///   model directory of that name, else ALREADY_EXISTS naming both.
/// Unmapped directories may repeat names of other roots: such a name is
/// ambiguous until one root goes, and loading it fails meanwhile. Reads the
/// file system; never throws.
status check_registration(const std::vector<repository_root>& roots,
                          const repository_root& candidate);

/// Removes the root registered at `path` from `roots`; INVALID_ARG "failed to
/// unregister '<p>', repository not found" when there is none.
status remove_root(std::vector<repository_root>& roots, const std::filesystem::path& path);

} // namespace conch::runtime::repository
