#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace conch::tests {

/// A model repository in a fresh directory under the system temporary
/// directory, removed with everything in it when the object goes. Test-only;
/// not thread-safe.
class temp_repository {
 public:
  temp_repository() {
    static std::atomic<int> counter{0};
    std::random_device device;
    path_ = std::filesystem::temp_directory_path()
            / ("conch_it_" + std::to_string(::getpid()) + "_" + std::to_string(++counter) + "_"
               + std::to_string(device() % 1000000));
    std::filesystem::create_directories(path_);
  }

  ~temp_repository() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  temp_repository(const temp_repository&) = delete;
  temp_repository& operator=(const temp_repository&) = delete;

  /// The repository directory.
  const std::filesystem::path& path() const noexcept { return path_; }

  /// The repository directory as a string, for server_options.
  std::string str() const { return path_.string(); }

  /// Writes model `name`: `config` as its config.pbtxt (none when empty) and
  /// one empty directory per version. Returns the model directory.
  std::filesystem::path add_model(const std::string& name, const std::string& config,
                                  const std::vector<int64_t>& versions = {1}) const {
    auto dir = path_ / name;
    std::filesystem::create_directories(dir);
    if (!config.empty())
      write(name + "/config.pbtxt", config);
    for (auto v : versions)
      std::filesystem::create_directories(dir / std::to_string(v));
    return dir;
  }

  /// Writes `bytes` to `relative` below the repository, creating parents and
  /// replacing what was there.
  std::filesystem::path write(const std::filesystem::path& relative,
                              const std::string& bytes) const {
    auto file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << bytes;
    return file;
  }

  /// Creates the directory `relative` (and its parents).
  std::filesystem::path make_dir(const std::filesystem::path& relative) const {
    std::filesystem::create_directories(path_ / relative);
    return path_ / relative;
  }

  /// Removes `relative` and everything below it.
  void remove(const std::filesystem::path& relative) const {
    std::error_code ec;
    std::filesystem::remove_all(path_ / relative, ec);
  }

 private:
  std::filesystem::path path_;
};

/// The root of the source tree: $CONCH_SOURCE_DIR (set by ctest), else the
/// directory the tests were configured from.
inline std::filesystem::path source_dir() {
  if (const char* env = std::getenv("CONCH_SOURCE_DIR"); env != nullptr && *env != '\0')
    return env;
  return CONCH_TEST_SOURCE_DIR;
}

/// The example repository of the Python package. Its C++ models are
/// identity_fp32, simple and repeat_int32 (example_cpp_models); the others
/// need the Python backends, which only a process running the conch package
/// has.
inline std::string example_repository() {
  return (source_dir() / "python/examples/example_model_repository").string();
}

/// The models of the example repository that a C++-only process can serve.
inline std::vector<std::string> example_cpp_models() {
  return {"identity_fp32", "repeat_int32", "simple"};
}

/// A repository checked in under tests/data/repositories/.
inline std::string data_repository(const std::string& name) {
  return (source_dir() / "tests/data/repositories" / name).string();
}

} // namespace conch::tests
