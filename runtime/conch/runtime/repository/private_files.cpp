#include "conch/runtime/repository/private_files.hpp"

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace conch::runtime::repository {

namespace fs = std::filesystem;

namespace {

constexpr mode_t private_directory_mode = 0700;
constexpr mode_t private_file_mode = 0600;

status os_error(const std::string& what, const fs::path& path, int error) {
  return internal_error("failed to " + what + " '" + path.string() + "': "
                        + std::strerror(error));
}

// Creates `dir` with mode 0700 (EEXIST reported as such to the caller).
int make_directory(const fs::path& dir) {
  if (::mkdir(dir.c_str(), private_directory_mode) != 0)
    return errno;
  // The umask may have taken bits away; the mode is ours to decide.
  return ::chmod(dir.c_str(), private_directory_mode) == 0 ? 0 : errno;
}

} // namespace

status ensure_private_directory(const fs::path& dir) {
  std::error_code ec;
  if (dir.has_parent_path())
    fs::create_directories(dir.parent_path(), ec);
  if (ec)
    return internal_error("failed to create '" + dir.parent_path().string() + "': "
                          + ec.message());
  int error = make_directory(dir);
  if (error == 0)
    return status::ok();
  if (error != EEXIST)
    return os_error("create", dir, error);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    return os_error("inspect", dir, errno);
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid())
    return internal_error("'" + dir.string() + "' is not a private directory of this user: it "
                          "is a link, not a directory, or owned by another user");
  if (::chmod(dir.c_str(), private_directory_mode) != 0)
    return os_error("restrict the mode of", dir, errno);
  return status::ok();
}

result<fs::path> make_private_temp_directory(const fs::path& parent, const std::string& prefix) {
  auto pattern = (parent / (prefix + "XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr)
    return os_error("create a directory like", pattern, errno);
  fs::path dir{name.data()};
  if (::chmod(dir.c_str(), private_directory_mode) != 0) {
    int error = errno;
    ::rmdir(dir.c_str());
    return os_error("restrict the mode of", dir, error);
  }
  return dir;
}

status make_private_subdirectories(const fs::path& root, const fs::path& rel) {
  auto dir = root;
  for (const auto& part : rel) {
    if (part.empty() || part == ".")
      continue;
    dir /= part;
    int error = make_directory(dir);
    if (error == 0)
      continue;
    if (error != EEXIST)
      return os_error("create", dir, error);
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
      return os_error("inspect", dir, errno);
    if (!S_ISDIR(st.st_mode))
      return invalid_argument("'" + dir.string() + "' exists and is not a directory");
  }
  return status::ok();
}

status write_private_file(const fs::path& file, std::string_view bytes) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                  private_file_mode);
  if (fd < 0)
    return os_error("open", file, errno);
  int error = ::fchmod(fd, private_file_mode) == 0 ? 0 : errno;
  while (error == 0 && !bytes.empty()) {
    auto n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno != EINTR)
      error = errno;
    else if (n > 0)
      bytes.remove_prefix(static_cast<size_t>(n));
  }
  if (::close(fd) != 0 && error == 0)
    error = errno;
  return error == 0 ? status::ok() : os_error("write", file, error);
}

} // namespace conch::runtime::repository
