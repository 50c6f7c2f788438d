#include "conch/runtime/shm/system_region.hpp"

#include <cerrno>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace conch::runtime::shm {

namespace {

// Closes a descriptor when the scope ends.
struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0)
      ::close(fd);
  }
};

std::string errno_text(int err) { return std::strerror(err); }

} // namespace

system_region::system_region(std::string name, std::string key, uint64_t offset,
                             uint64_t byte_size, void* base, size_t lead,
                             guarded_span guard) noexcept
  : name_(std::move(name)), key_(std::move(key)), offset_(offset), byte_size_(byte_size),
    base_(base), lead_(lead), guard_(std::move(guard)) {}

system_region::~system_region() {
  guard_.release();  // before the pages go: their address may be reused
  ::munmap(base_, lead_ + byte_size_);
}

runtime::status system_region::check_intact() const {
  if (!torn())
    return runtime::status::ok();
  return runtime::invalid_argument(
    "shared memory region '" + name_ + "': the shared memory object '" + key_
    + "' shrank below the registered offset + byte size while the server used it; "
      "unregister the region and register it again");
}

runtime::result<std::shared_ptr<const system_region>>
system_region::map(std::string name, std::string key, uint64_t offset, uint64_t byte_size) {
  // Triton's key rules: the python backend's regions are not a client's to
  // map, however many slashes lead the key, and a key must name an object.
  constexpr std::string_view reserved_prefix = "triton_python_backend_shm_region_";
  const auto first = key.find_first_not_of('/');
  if (first == std::string::npos)
    return runtime::invalid_argument("cannot register shared memory region '" + name
                                     + "' with key '" + key
                                     + "' as the key names no shared memory object");
  if (std::string_view{key}.substr(first).rfind(reserved_prefix, 0) == 0)
    return runtime::invalid_argument("cannot register shared memory region '" + name
                                     + "' with key '" + key
                                     + "' as the key contains the reserved prefix '"
                                     + std::string{reserved_prefix} + "'");
  if (byte_size == 0)
    return runtime::invalid_argument("shared memory region '" + name
                                     + "': byte_size must be greater than 0");
  fd_guard fd{::shm_open(key.c_str(), O_RDWR, 0)};
  if (fd.fd < 0)
    return runtime::internal_error("Unable to open shared memory region: '" + key + "'");
  struct stat st{};
  if (::fstat(fd.fd, &st) != 0)
    return runtime::internal_error("Unable to query shared memory region '" + key
                                   + "': " + errno_text(errno));
  // Touching mapped pages past the object's end would raise SIGBUS: the
  // range must lie inside the object as it is now.
  auto object_size = static_cast<uint64_t>(st.st_size);
  if (offset > object_size || byte_size > object_size - offset)
    return runtime::invalid_argument(
      "failed to register shared memory region '" + name + "': invalid args (offset "
      + std::to_string(offset) + ", byte_size " + std::to_string(byte_size) + ", but '" + key
      + "' holds " + std::to_string(object_size) + " bytes)");
  auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t start = offset - offset % page;
  auto lead = static_cast<size_t>(offset - start);
  if (byte_size > std::numeric_limits<size_t>::max() - lead)
    return runtime::invalid_argument("shared memory region '" + name + "' is too large");
  void* base = ::mmap(nullptr, lead + byte_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.fd,
                      static_cast<off_t>(start));
  if (base == MAP_FAILED)
    return runtime::internal_error("unable to map shared memory region '" + key
                                   + "': " + errno_text(errno));
  auto guard = guarded_span::guard(base, lead + byte_size);
  if (!guard) {
    ::munmap(base, lead + byte_size);
    return guard.error();
  }
  return std::shared_ptr<const system_region>{new system_region{
    std::move(name), std::move(key), offset, byte_size, base, lead, std::move(*guard)}};
}

} // namespace conch::runtime::shm
