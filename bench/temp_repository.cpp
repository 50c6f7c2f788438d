#include "temp_repository.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace conch::bench {

namespace {

namespace fs = std::filesystem;

// Copies bench/models/<name>/config.pbtxt with an empty version folder 1.
bool copy_model(const fs::path& root, const char* name) {
  std::error_code ec;
  fs::create_directories(root / name / "1", ec);
  if (!ec)
    fs::copy_file(fs::path{CONCH_BENCH_MODELS} / name / "config.pbtxt",
                  root / name / "config.pbtxt", ec);
  return !ec;
}

} // namespace

temp_repository::temp_repository() {
  auto base = fs::temp_directory_path() / "conch-bench-XXXXXX";
  std::string pattern = base.string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr)
    return;
  fs::path root{buf.data()};
  if (copy_model(root, "identity_fp32") && copy_model(root, "identity_fp32_batched")
      && copy_model(root, "ensemble_identity_2") && copy_model(root, "sequence_identity"))
    path_ = root.string();
  else
    fs::remove_all(root);
}

temp_repository::~temp_repository() {
  if (!path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
}

} // namespace conch::bench
