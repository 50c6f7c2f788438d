#include "conch/runtime/contained_path.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <system_error>

namespace conch::runtime {

namespace fs = std::filesystem;

status check_relative_name(std::string_view name) {
  if (name.find('\0') != std::string_view::npos)
    return invalid_argument("must not contain a NUL byte");
  if (name.empty())
    return status::ok();
  if (name.front() == '/')
    return invalid_argument("must be a relative path, got '" + std::string{name} + "'");
  size_t begin = 0;
  while (begin <= name.size()) {
    auto end = std::min(name.find('/', begin), name.size());
    if (name.substr(begin, end - begin) == "..")
      return invalid_argument("must not contain a '..' component, got '" + std::string{name}
                              + "'");
    begin = end + 1;
  }
  return status::ok();
}

bool is_within(const fs::path& base, const fs::path& path) noexcept {
  auto b = base.begin();
  auto p = path.begin();
  for (; b != base.end(); ++b, ++p) {
    // A trailing separator of `base` reads as an empty last component.
    if (b->empty() && std::next(b) == base.end())
      return true;
    if (p == path.end() || *b != *p)
      return false;
  }
  return true;
}

result<fs::path> resolve_within(const fs::path& base, std::string_view name) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_relative_name(name));
  try {
    std::error_code ec;
    auto root = fs::weakly_canonical(base, ec);
    if (ec)
      return internal_error("failed to resolve '" + base.string() + "': " + ec.message());
    auto target = fs::weakly_canonical(root / fs::path{std::string{name}}, ec);
    if (ec)
      return internal_error("failed to resolve '" + std::string{name} + "' in '" + base.string()
                            + "': " + ec.message());
    if (!is_within(root, target))
      return invalid_argument("'" + std::string{name} + "' leads outside '" + base.string()
                              + "'");
    return target;
  } catch (const std::exception& e) {
    // Only allocation can throw once the error_code overloads are used.
    return internal_error(std::string{"failed to resolve a path: "} + e.what());
  }
}

} // namespace conch::runtime
