#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace conch::tests {

/// An HTTP input or output entry's shared-memory parameters, as JSON members:
/// `"parameters":{"shared_memory_region":...}`.
inline std::string shm_params(const std::string& region, uint64_t offset, uint64_t byte_size) {
  return R"("parameters":{"shared_memory_region":")" + region + R"(","shared_memory_offset":)"
         + std::to_string(offset) + R"(,"shared_memory_byte_size":)" + std::to_string(byte_size)
         + "}";
}

/// A POSIX shared-memory object of a fixed size, created with a unique key,
/// mapped into the test, and unlinked at the end: what a client of the
/// shared-memory extension creates before registering it.
class shm_object {
 public:
  explicit shm_object(size_t size) : size_(size) {
    static std::atomic<int> next{0};
    key_ = "/conch_test_" + std::to_string(::getpid()) + "_" + std::to_string(next++);
    int fd = ::shm_open(key_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
      return;
    if (::ftruncate(fd, static_cast<off_t>(size)) == 0) {
      void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (p != MAP_FAILED)
        data_ = static_cast<std::byte*>(p);
    }
    ::close(fd);
  }

  shm_object(const shm_object&) = delete;
  shm_object& operator=(const shm_object&) = delete;

  ~shm_object() {
    if (data_ != nullptr)
      ::munmap(data_, size_);
    ::shm_unlink(key_.c_str());
  }

  /// True when the object was created and mapped.
  bool ok() const noexcept { return data_ != nullptr; }
  const std::string& key() const noexcept { return key_; }
  std::byte* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }

  /// Truncates the object to `size` bytes, as a client may at any time; the
  /// test's own mapping must not be read past `size` afterwards.
  bool shrink_to(size_t size) {
    int fd = ::shm_open(key_.c_str(), O_RDWR, 0);
    bool done = fd >= 0 && ::ftruncate(fd, static_cast<off_t>(size)) == 0;
    if (fd >= 0)
      ::close(fd);
    return done;
  }

  /// Copies `n` bytes from `src` to the object's byte `offset`.
  void write(size_t offset, const void* src, size_t n) { std::memcpy(data_ + offset, src, n); }

  /// Reads a T at the object's byte `offset`.
  template <class T>
  T read(size_t offset) const {
    T out;
    std::memcpy(&out, data_ + offset, sizeof(T));
    return out;
  }

  /// How many mappings of this object the current process has (besides the
  /// test's own), as /proc/self/maps lists them.
  int process_mappings() const {
    std::ifstream maps{"/proc/self/maps"};
    int n = 0;
    for (std::string line; std::getline(maps, line);)
      if (line.size() >= key_.size() && line.compare(line.size() - key_.size(), key_.size(), key_) == 0)
        ++n;
    return n - (data_ != nullptr ? 1 : 0);
  }

 private:
  size_t size_;
  std::string key_;
  std::byte* data_ = nullptr;
};

} // namespace conch::tests
