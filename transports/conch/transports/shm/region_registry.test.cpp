#include "conch/transports/shm/region_registry.hpp"

#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace conch::transports::shm {
namespace {

// A POSIX shared-memory object of `size` bytes, removed at the end.
class shm_object {
 public:
  explicit shm_object(size_t size)
    : key_("/conch_registry_test_" + std::to_string(::getpid()) + "_" + std::to_string(next_++)) {
    int fd = ::shm_open(key_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
    ::close(fd);
  }
  ~shm_object() { ::shm_unlink(key_.c_str()); }
  const std::string& key() const { return key_; }

 private:
  static inline int next_ = 0;
  std::string key_;
};

TEST(region_registry, registers_lists_and_unregisters) {
  shm_object a{4096}, b{8192};
  region_registry r;
  ASSERT_TRUE(r.register_system("b", b.key(), 100, 200));
  ASSERT_TRUE(r.register_system("a", a.key(), 0, 4096));
  auto all = r.system_status("");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0]->name(), "a");
  EXPECT_EQ((*all)[1]->key(), b.key());
  EXPECT_EQ((*all)[1]->offset(), 100u);
  EXPECT_EQ((*all)[1]->byte_size(), 200u);
  auto one = r.system_status("b");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->size(), 1u);
  r.unregister_system("b");
  r.unregister_system("never registered");
  EXPECT_EQ(r.system_status("b").error().code(), runtime::errc::not_found);
  EXPECT_EQ(r.system_status("b").error().message(),
            "Unable to find system shared memory region: 'b'");
  r.unregister_system("");
  EXPECT_EQ(r.size(), 0u);
}

TEST(region_registry, refuses_duplicates_unknown_keys_and_bad_ranges) {
  shm_object a{4096};
  region_registry r;
  ASSERT_TRUE(r.register_system("a", a.key(), 0, 16));
  auto dup = r.register_system("a", a.key(), 0, 16);
  EXPECT_EQ(dup.code(), runtime::errc::already_exists);
  EXPECT_EQ(dup.message(), "shared memory region 'a' already in manager");
  auto missing = r.register_system("m", "/conch_no_such_object", 0, 16);
  EXPECT_EQ(missing.code(), runtime::errc::invalid_argument);
  EXPECT_EQ(missing.message(), "Unable to open shared memory region: '/conch_no_such_object'");
  EXPECT_EQ(r.register_system("big", a.key(), 0, 4097).code(), runtime::errc::invalid_argument);
  EXPECT_EQ(r.register_system("far", a.key(), 5000, 1).code(), runtime::errc::invalid_argument);
  EXPECT_EQ(r.register_system("zero", a.key(), 0, 0).code(), runtime::errc::invalid_argument);
  EXPECT_EQ(r.size(), 1u);
}

TEST(region_registry, resolves_ranges_that_alias_the_object) {
  shm_object a{8192};
  region_registry r;
  // An offset that is not page aligned.
  ASSERT_TRUE(r.register_system("a", a.key(), 4100, 64));
  auto b = r.resolve("a", 8, 16);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->size(), 16u);
  std::memcpy(b->data(), "0123456789abcdef", 16);
  // Seen through a second, independent mapping of the object.
  int fd = ::shm_open(a.key().c_str(), O_RDONLY, 0);
  ASSERT_GE(fd, 0);
  auto* view = static_cast<const char*>(::mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, 0));
  ::close(fd);
  ASSERT_NE(view, MAP_FAILED);
  EXPECT_EQ(std::string(view + 4108, 16), "0123456789abcdef");
  ::munmap(const_cast<char*>(view), 8192);

  EXPECT_EQ(r.resolve("x", 0, 1).error().code(), runtime::errc::not_found);
  EXPECT_EQ(r.resolve("x", 0, 1).error().message(), "Unable to find shared memory region: 'x'");
  EXPECT_EQ(r.resolve("a", 65, 0).error().message(),
            "Invalid offset for shared memory region: 'a'");
  EXPECT_EQ(r.resolve("a", 60, 8).error().message(),
            "Invalid offset + byte size for shared memory region: 'a'");
  EXPECT_TRUE(r.resolve("a", 64, 0));
}

TEST(region_registry, keeps_a_region_in_use_mapped_after_unregister) {
  shm_object a{4096};
  region_registry r;
  ASSERT_TRUE(r.register_system("a", a.key(), 0, 4096));
  auto b = r.resolve("a", 0, 4096);
  ASSERT_TRUE(b);
  std::weak_ptr<const void> mapping = b->owner();
  r.unregister_system("a");
  EXPECT_FALSE(mapping.expired());
  std::memset(b->data(), 7, 4096);  // still mapped: no fault
  *b = runtime::buffer{};
  EXPECT_TRUE(mapping.expired());
  // The name is free again.
  EXPECT_TRUE(r.register_system("a", a.key(), 0, 16));
}

} // namespace
} // namespace conch::transports::shm
