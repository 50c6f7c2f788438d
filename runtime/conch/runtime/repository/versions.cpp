#include "conch/runtime/repository/versions.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <system_error>

namespace conch::runtime::repository {

namespace fs = std::filesystem;

namespace {

// Parses a directory name as a version the way Triton accepts it, minus its
// quirk of taking a numeric prefix ("1abc" -> 1): digits only, no sign, no
// leading zero except "0" itself, and no overflow.
std::optional<int64_t> parse_version(const std::string& name) {
  if (name.empty() || (name.size() > 1 && name.front() == '0'))
    return std::nullopt;
  if (!std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), value);
  if (ec != std::errc{} || end != name.data() + name.size())
    return std::nullopt;
  return value;
}

std::vector<int64_t> sorted_unique(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

} // namespace

std::vector<int64_t> version_directories(const fs::path& model_path) {
  std::vector<int64_t> out;
  std::error_code ec;
  fs::directory_iterator it(model_path, ec);
  if (ec)
    return out;
  for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    auto version = parse_version(it->path().filename().string());
    std::error_code entry_ec;
    if (version && it->is_directory(entry_ec) && !entry_ec)
      out.push_back(*version);
  }
  // A directory that vanished half-way still yields what was read: the
  // caller decides with the next look whether the model is still there.
  return sorted_unique(std::move(out));
}

std::vector<int64_t> select_versions(const inference::ModelVersionPolicy& policy,
                                     const std::vector<int64_t>& available) {
  auto versions = sorted_unique(available);
  if (policy.has_all())
    return versions;
  if (policy.has_specific()) {
    std::vector<int64_t> out;
    for (auto v : policy.specific().versions())
      if (std::binary_search(versions.begin(), versions.end(), v))
        out.push_back(v);
    return sorted_unique(std::move(out));
  }
  uint64_t wanted = policy.has_latest() ? policy.latest().num_versions() : 1;
  if (wanted < versions.size())
    versions.erase(versions.begin(), versions.end() - static_cast<ptrdiff_t>(wanted));
  return versions;
}

std::vector<int64_t> missing_specific_versions(const inference::ModelVersionPolicy& policy,
                                               const std::vector<int64_t>& available) {
  std::vector<int64_t> out;
  if (!policy.has_specific())
    return out;
  for (auto v : policy.specific().versions()) {
    bool present = std::find(available.begin(), available.end(), v) != available.end();
    bool listed = std::find(out.begin(), out.end(), v) != out.end();
    if (!present && !listed)
      out.push_back(v);
  }
  return out;
}

} // namespace conch::runtime::repository
