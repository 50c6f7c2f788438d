#pragma once

#include <cstdint>
#include <filesystem>

namespace conch::runtime::repository {

/// A hash of everything under a model directory that a change to the model
/// would touch: the relative path, kind, size and modification time of every
/// file and directory below it (recursively, following symbolic links). POLL
/// mode compares two fingerprints to tell whether a model changed. Returns 0
/// when the directory is missing or cannot be read completely (for instance
/// when it is removed during the walk); a readable directory never hashes to
/// 0. Never throws.
uint64_t fingerprint(const std::filesystem::path& model_path) noexcept;

} // namespace conch::runtime::repository
