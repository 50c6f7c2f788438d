#pragma once

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <unistd.h>

namespace conch::runtime::repository::test_support {

/// A directory under the system temporary directory, unique to this process
/// and object, removed with everything in it on destruction. Test-only.
class temp_directory {
 public:
  temp_directory() {
    static std::atomic<int> counter{0};
    std::random_device device;
    path_ = std::filesystem::temp_directory_path()
            / ("conch_repository_test_" + std::to_string(::getpid()) + "_"
               + std::to_string(++counter) + "_" + std::to_string(device() % 100000));
    std::filesystem::create_directories(path_);
  }

  ~temp_directory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  temp_directory(const temp_directory&) = delete;
  temp_directory& operator=(const temp_directory&) = delete;

  /// The directory.
  const std::filesystem::path& path() const { return path_; }

  /// Creates the directory `rel` (and its parents) below this one.
  std::filesystem::path make_dir(const std::filesystem::path& rel) const {
    std::filesystem::create_directories(path_ / rel);
    return path_ / rel;
  }

  /// Writes `bytes` to the file `rel` below this one, creating its parents.
  std::filesystem::path write(const std::filesystem::path& rel, const std::string& bytes) const {
    auto file = path_ / rel;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
    return file;
  }

 private:
  std::filesystem::path path_;
};

/// Reads a whole file as bytes; empty when it cannot be opened. Test-only.
inline std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace conch::runtime::repository::test_support
