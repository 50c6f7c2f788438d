#include "conch/runtime/shm/fault_guard.hpp"

#include <csignal>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "conch/runtime/shm/region_registry.hpp"
#include "conch/runtime/shm/tensor_io.hpp"

namespace conch::runtime::shm {
namespace {

// A POSIX shared-memory object of `size` bytes that a test can shrink as a
// client would, registered as "r"; removed at the end.
class shrinkable_object {
 public:
  explicit shrinkable_object(size_t size)
    : key_("/conch_fault_guard_test_" + std::to_string(::getpid()) + "_"
           + std::to_string(next_++)) {
    fd_ = ::shm_open(key_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    EXPECT_GE(fd_, 0);
    EXPECT_EQ(::ftruncate(fd_, static_cast<off_t>(size)), 0);
    EXPECT_TRUE(registry_.register_system("r", key_, 0, size));
  }
  ~shrinkable_object() {
    ::close(fd_);
    ::shm_unlink(key_.c_str());
  }

  void shrink_to(size_t size) { ASSERT_EQ(::ftruncate(fd_, static_cast<off_t>(size)), 0); }
  region_registry& registry() { return registry_; }

 private:
  static inline int next_ = 0;
  std::string key_;
  int fd_ = -1;
  region_registry registry_;
};

constexpr size_t page = 4096;

TEST(fault_guard, reading_a_shrunk_region_reads_zeros_and_tears_it) {
  shrinkable_object o{4 * page};
  auto bytes = o.registry().resolve("r", 0, 4 * page);
  ASSERT_TRUE(bytes);
  std::memset(bytes->data(), 0x5a, 4 * page);
  o.shrink_to(page);
  // Past the object's end: without the guard this read ends the process.
  std::vector<std::byte> copy(4 * page);
  std::memcpy(copy.data(), bytes->data(), copy.size());
  EXPECT_EQ(copy[0], std::byte{0x5a});
  EXPECT_EQ(copy[page + 1], std::byte{0});
  EXPECT_EQ(copy[4 * page - 1], std::byte{0});

  auto region = o.registry().find_system("r");
  ASSERT_NE(region, nullptr);
  EXPECT_TRUE(region->torn());
  auto again = o.registry().resolve("r", 0, 8);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), runtime::errc::invalid_argument);
  EXPECT_NE(again.error().message().find("shrank"), std::string::npos);
}

TEST(fault_guard, writing_past_a_vanished_object_fails_the_response) {
  shrinkable_object o{2 * page};
  auto regions = output_regions::resolve(o.registry(), {{"OUT", {"r", page, page}}});
  ASSERT_TRUE(regions);
  ASSERT_NE(*regions, nullptr);
  auto placed = (*regions)->allocate("OUT", page, runtime::memory_type::cpu, 0);
  ASSERT_TRUE(placed);
  o.shrink_to(0);
  // A backend writing its output where the allocator put it.
  std::thread backend{[&] { std::memset(placed->data(), 1, page); }};
  backend.join();
  runtime::inference_response r;
  runtime::tensor t;
  t.name = "OUT";
  t.type = runtime::data_type::uint8;
  t.shape = {static_cast<int64_t>(page)};
  t.data = *placed;
  r.outputs.push_back(t);
  EXPECT_TRUE((*regions)->deliver(r));  // in place already
  EXPECT_EQ((*regions)->verify().code(), runtime::errc::invalid_argument);
}

TEST(fault_guard, an_input_region_that_shrank_fails_the_response) {
  shrinkable_object o{2 * page};
  auto regions = output_regions::resolve(o.registry(), {}, {"r", "unknown"});
  ASSERT_TRUE(regions);
  ASSERT_NE(*regions, nullptr);
  EXPECT_TRUE((*regions)->verify());
  auto bytes = o.registry().resolve("r", 0, 2 * page);
  ASSERT_TRUE(bytes);
  o.shrink_to(0);
  volatile auto first = static_cast<unsigned char>(bytes->data()[page]);
  EXPECT_EQ(first, 0);
  EXPECT_EQ((*regions)->verify().code(), runtime::errc::invalid_argument);
}

TEST(fault_guard, a_handler_installed_later_is_put_behind_the_guard_at_the_next_use) {
  shrinkable_object o{2 * page};
  // As faulthandler.enable() in a model would, after the region exists.
  struct sigaction other {}, before {};
  other.sa_handler = [](int) { ::_exit(3); };
  sigemptyset(&other.sa_mask);
  ASSERT_EQ(::sigaction(SIGBUS, &other, &before), 0);
  auto bytes = o.registry().resolve("r", 0, 2 * page);  // a request uses it
  ASSERT_TRUE(bytes);
  o.shrink_to(0);
  volatile auto first = static_cast<unsigned char>(bytes->data()[page]);
  EXPECT_EQ(first, 0);
  EXPECT_TRUE(o.registry().find_system("r")->torn());
  ::sigaction(SIGBUS, &before, nullptr);
}

TEST(fault_guard, spans_are_released_with_their_regions) {
  auto before = guarded_span::guarded_count();
  {
    shrinkable_object o{page};
    EXPECT_EQ(guarded_span::guarded_count(), before + 1);
    o.registry().unregister_system("r");
    EXPECT_EQ(guarded_span::guarded_count(), before);
  }
  EXPECT_EQ(guarded_span::guarded_count(), before);
}

TEST(fault_guard, a_fault_outside_every_span_is_not_ours) {
  // The default action still ends the process for a mapping nobody guards.
  EXPECT_DEATH(
    {
      char path[] = "/tmp/conch_fault_guard_XXXXXX";
      int fd = ::mkstemp(path);
      ::unlink(path);
      (void)::ftruncate(fd, page);
      shrinkable_object o{page};  // installs the handler
      auto* p = static_cast<volatile char*>(
        ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
      p[page + 1] = 1;
    },
    "");
}

} // namespace
} // namespace conch::runtime::shm
