#include "conch/runtime/repository/fingerprint.hpp"

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

namespace conch::runtime::repository {

namespace fs = std::filesystem;

namespace {

// Deeper than any sane model layout; stops a symbolic link that points to one
// of its own ancestors from recursing until the path grows too long.
constexpr int max_depth = 32;

// FNV-1a: order-sensitive, cheap and good enough to detect a change; nothing
// here needs resistance to crafted collisions.
uint64_t fnv1a(const std::string& bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void append_number(std::string& out, int64_t value) {
  out += std::to_string(value);
  out += '\n';
}

// One line per entry: relative path, kind, size and mtime. An entry whose
// status cannot be read (a dangling link, a file removed just now) still
// contributes its path and "unknown" kind, so its appearance is noticed.
std::string describe(const fs::directory_entry& entry, const fs::path& root) {
  std::string out = entry.path().lexically_relative(root).generic_string();
  out += '\0';
  std::error_code ec;
  auto st = entry.status(ec);
  append_number(out, ec ? -1 : static_cast<int64_t>(st.type()));
  if (!ec && fs::is_regular_file(st)) {
    auto size = entry.file_size(ec);
    append_number(out, ec ? -1 : static_cast<int64_t>(size));
  }
  auto mtime = entry.last_write_time(ec);
  append_number(out, ec ? -1 : static_cast<int64_t>(mtime.time_since_epoch().count()));
  return out;
}

} // namespace

uint64_t fingerprint(const fs::path& model_path) noexcept {
  try {
    std::error_code ec;
    if (!fs::is_directory(model_path, ec) || ec)
      return 0;
    auto options = fs::directory_options::follow_directory_symlink;
    fs::recursive_directory_iterator it(model_path, options, ec);
    if (ec)
      return 0;
    std::vector<std::string> entries;
    for (const fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
      if (it.depth() >= max_depth)
        it.disable_recursion_pending();
      entries.push_back(describe(*it, model_path));
    }
    if (ec)
      return 0;
    // The listing order of a directory is unspecified; sorting makes the
    // hash depend on the contents only.
    std::sort(entries.begin(), entries.end());
    std::string all;
    for (const auto& e : entries)
      all += e;
    auto h = fnv1a(all);
    return h == 0 ? 1 : h;
  } catch (...) {
    // Only allocation can throw here; a fingerprint that cannot be computed
    // reads as "could not tell", like any other error.
    return 0;
  }
}

} // namespace conch::runtime::repository
