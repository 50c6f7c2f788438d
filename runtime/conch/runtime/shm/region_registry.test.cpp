#include "conch/runtime/shm/region_registry.hpp"

#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "conch/runtime/test/fake_device_memory.hpp"

namespace conch::runtime::shm {
namespace {

using runtime::test::fake_device_memory;

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
  EXPECT_EQ(missing.code(), runtime::errc::internal);
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

TEST(region_registry, cuda_regions_are_refused_without_a_provider_or_gpus) {
  for (auto memory : {std::shared_ptr<runtime::device_memory>{},
                      std::shared_ptr<runtime::device_memory>{
                        std::make_shared<fake_device_memory>(0)}}) {
    region_registry r{memory};
    auto st = r.register_cuda("c", std::string(64, '\0'), 0, 64);
    EXPECT_EQ(st.code(), runtime::errc::invalid_argument);
    EXPECT_EQ(st.message(),
              "failed to register CUDA shared memory region: 'c', GPUs not supported");
    auto all = r.cuda_status("");
    ASSERT_TRUE(all);
    EXPECT_TRUE(all->empty());
    EXPECT_EQ(r.cuda_status("c").error().code(), runtime::errc::not_found);
    EXPECT_EQ(r.cuda_status("c").error().message(),
              "Unable to find cuda shared memory region: 'c'");
    r.unregister_cuda("");
    r.unregister_cuda("c");
    EXPECT_EQ(r.size(), 0u);
  }
}

TEST(region_registry, registers_lists_and_unregisters_cuda_regions) {
  auto memory = std::make_shared<fake_device_memory>(2);
  region_registry r{memory};
  auto h0 = memory->export_allocation(256, 0);
  auto h1 = memory->export_allocation(512, 1);
  ASSERT_TRUE(r.register_cuda("g1", h1, 1, 512));
  ASSERT_TRUE(r.register_cuda("g0", h0, 0, 128));
  EXPECT_EQ(memory->open_handles(), 2);
  {
    // Status answers share the regions: scoped, so that unregistering
    // below closes them.
    auto all = r.cuda_status("");
    ASSERT_TRUE(all);
    ASSERT_EQ(all->size(), 2u);
    EXPECT_EQ((*all)[0]->name(), "g0");
    EXPECT_EQ((*all)[0]->device_id(), 0);
    EXPECT_EQ((*all)[0]->byte_size(), 128u);
    EXPECT_EQ((*all)[1]->name(), "g1");
    EXPECT_EQ((*all)[1]->device_id(), 1);
    auto one = r.cuda_status("g1");
    ASSERT_TRUE(one);
    EXPECT_EQ(one->size(), 1u);
  }
  r.unregister_cuda("g1");
  r.unregister_cuda("never registered");
  EXPECT_EQ(memory->open_handles(), 1);
  EXPECT_EQ(r.cuda_status("g1").error().code(), runtime::errc::not_found);
  r.unregister_cuda("");
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(memory->open_handles(), 0);
}

TEST(region_registry, a_name_taken_by_a_system_region_cannot_be_a_cuda_region) {
  shm_object a{4096};
  auto memory = std::make_shared<fake_device_memory>();
  region_registry r{memory};
  auto handle = memory->export_allocation(64);
  ASSERT_TRUE(r.register_system("s", a.key(), 0, 64));
  ASSERT_TRUE(r.register_cuda("c", handle, 0, 64));
  auto cuda_dup = r.register_cuda("s", handle, 0, 64);
  EXPECT_EQ(cuda_dup.code(), runtime::errc::already_exists);
  EXPECT_EQ(cuda_dup.message(), "shared memory region 's' already in manager");
  auto system_dup = r.register_system("c", a.key(), 0, 64);
  EXPECT_EQ(system_dup.code(), runtime::errc::already_exists);
  EXPECT_EQ(system_dup.message(), "shared memory region 'c' already in manager");
  EXPECT_EQ(memory->open_handles(), 1);
  // Each kind's status and unregister see only its own regions.
  EXPECT_EQ(r.cuda_status("s").error().message(), "Unable to find cuda shared memory region: 's'");
  EXPECT_EQ(r.system_status("c").error().message(),
            "Unable to find system shared memory region: 'c'");
  r.unregister_system("");
  r.unregister_cuda("s");
  EXPECT_TRUE(r.cuda_status("c"));
  r.unregister_cuda("");
  EXPECT_TRUE(r.register_system("c", a.key(), 0, 64));
}

TEST(region_registry, refuses_bad_cuda_registrations_and_keeps_nothing_open) {
  auto memory = std::make_shared<fake_device_memory>();
  region_registry r{memory};
  auto handle = memory->export_allocation(64);
  EXPECT_EQ(r.register_cuda("c", handle.substr(1), 0, 64).code(),
            runtime::errc::invalid_argument);
  EXPECT_EQ(r.register_cuda("c", handle, 1, 64).code(), runtime::errc::invalid_argument);
  EXPECT_EQ(r.register_cuda("c", handle, 0, 0).code(), runtime::errc::invalid_argument);
  auto garbage = r.register_cuda("c", std::string(64, '\x7f'), 0, 64);
  EXPECT_EQ(garbage.code(), runtime::errc::invalid_argument);
  EXPECT_EQ(garbage.message(), "failed to register CUDA shared memory region: 'c', "
                               "cudaIpcOpenMemHandle failed: invalid argument");
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(memory->open_handles(), 0);
}

TEST(region_registry, resolves_cuda_ranges_to_device_memory) {
  auto memory = std::make_shared<fake_device_memory>(2);
  region_registry r{memory};
  auto handle = memory->export_allocation(128, 1);
  ASSERT_TRUE(r.register_cuda("g", handle, 1, 64));
  auto b = r.resolve("g", 8, 16);
  ASSERT_TRUE(b) << b.error().to_string();
  EXPECT_EQ(b->type(), runtime::memory_type::gpu);
  EXPECT_EQ(b->device_id(), 1);
  EXPECT_EQ(b->data(), memory->bytes(handle) + 8);
  EXPECT_EQ(b->size(), 16u);
  EXPECT_EQ(r.resolve("g", 65, 0).error().message(),
            "Invalid offset for shared memory region: 'g'");
  EXPECT_EQ(r.resolve("g", 60, 8).error().message(),
            "Invalid offset + byte size for shared memory region: 'g'");
  EXPECT_TRUE(r.resolve("g", 64, 0));
}

TEST(region_registry, keeps_a_cuda_region_in_use_open_after_unregister) {
  auto memory = std::make_shared<fake_device_memory>();
  region_registry r{memory};
  auto handle = memory->export_allocation(64);
  ASSERT_TRUE(r.register_cuda("g", handle, 0, 64));
  auto b = r.resolve("g", 0, 64);
  ASSERT_TRUE(b);
  r.unregister_cuda("");
  EXPECT_EQ(r.size(), 1u);  // registered until its request is done, as in Triton
  EXPECT_EQ(memory->open_handles(), 1);
  *b = runtime::buffer{};
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(memory->open_handles(), 0);
}

TEST(region_registry, uses_the_process_provider_by_default) {
  auto memory = std::make_shared<fake_device_memory>();
  runtime::test::scoped_device_memory installed{memory};
  region_registry r;
  EXPECT_EQ(r.device_memory(), memory);
  EXPECT_TRUE(r.register_cuda("g", memory->export_allocation(64), 0, 64));
}

TEST(region_registry, keys_follow_tritons_rules) {
  region_registry r;
  for (std::string key : {"triton_python_backend_shm_region_x", "/triton_python_backend_shm_region_x",
                          "///triton_python_backend_shm_region__my_key"}) {
    auto st = r.register_system("mine", key, 0, 16);
    EXPECT_EQ(st.code(), runtime::errc::invalid_argument) << key;
    EXPECT_EQ(st.message(), "cannot register shared memory region 'mine' with key '" + key
                              + "' as the key contains the reserved prefix "
                                "'triton_python_backend_shm_region_'");
  }
  for (std::string key : {"", "/", "///"}) {
    auto st = r.register_system("mine", key, 0, 16);
    EXPECT_EQ(st.code(), runtime::errc::invalid_argument) << key;
    EXPECT_NE(st.message().find("as the key names no shared memory object"), std::string::npos);
  }
  shm_object a{64};
  auto beyond = r.register_system("far", a.key(), 60, 8);
  EXPECT_EQ(beyond.code(), runtime::errc::invalid_argument);
  EXPECT_EQ(beyond.message().rfind("failed to register shared memory region 'far': invalid args", 0),
            0u);
}

TEST(region_registry, a_region_in_use_stays_registered_until_its_requests_end) {
  shm_object a{4096};
  region_registry r;
  ASSERT_TRUE(r.register_system("a", a.key(), 0, 64));
  ASSERT_TRUE(r.register_system("b", a.key(), 64, 64));
  auto held = r.resolve("a", 0, 16);  // a request's input
  ASSERT_TRUE(held);
  r.unregister_system("");
  // As in Triton: listed, named and usable while the request holds it.
  auto listed = r.system_status("");
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front()->name(), "a");
  listed->clear();
  EXPECT_EQ(r.register_system("a", a.key(), 0, 64).code(), runtime::errc::already_exists);
  EXPECT_TRUE(r.resolve("a", 0, 16));
  EXPECT_EQ(r.system_status("b").error().code(), runtime::errc::not_found);
  *held = runtime::buffer{};  // the request ends
  EXPECT_EQ(r.system_status("a").error().message(),
            "Unable to find system shared memory region: 'a'");
  EXPECT_TRUE(r.register_system("a", a.key(), 0, 64));
  EXPECT_EQ(r.size(), 1u);
}

} // namespace
} // namespace conch::runtime::shm
