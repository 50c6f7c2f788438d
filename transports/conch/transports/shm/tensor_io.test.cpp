#include "conch/transports/shm/tensor_io.hpp"

#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "conch/transports/shm/cuda_regions.hpp"

namespace conch::transports::shm {
namespace {

// A POSIX shared-memory object of `size` bytes, registered as "r" in a
// registry of its own, removed at the end.
class registered_object {
 public:
  explicit registered_object(size_t size)
    : key_("/conch_tensor_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(next_++)) {
    int fd = ::shm_open(key_.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
    ::close(fd);
    EXPECT_TRUE(registry_.register_system("r", key_, 0, size));
  }
  ~registered_object() { ::shm_unlink(key_.c_str()); }

  region_registry& registry() { return registry_; }

 private:
  static inline int next_ = 0;
  std::string key_;
  region_registry registry_;
};

runtime::tensor fp32_input(runtime::shape_type shape) {
  runtime::tensor t;
  t.name = "IN";
  t.type = runtime::data_type::fp32;
  t.shape = std::move(shape);
  return t;
}

TEST(tensor_io, an_input_aliases_its_region) {
  registered_object o{64};
  auto target = o.registry().resolve("r", 0, 64);
  ASSERT_TRUE(target);
  auto t = fp32_input({2});
  ASSERT_TRUE(resolve_input(o.registry(), {"r", 16, 8}, t));
  EXPECT_EQ(t.data.data(), target->data() + 16);
  EXPECT_EQ(t.data.size(), 8u);

  auto wrong_size = fp32_input({3});
  EXPECT_EQ(resolve_input(o.registry(), {"r", 16, 8}, wrong_size).code(),
            runtime::errc::invalid_argument);
  auto unknown = fp32_input({2});
  EXPECT_EQ(resolve_input(o.registry(), {"nope", 0, 8}, unknown).code(),
            runtime::errc::not_found);
  EXPECT_EQ(resolve_input(o.registry(), {"r", 60, 8}, unknown).code(),
            runtime::errc::invalid_argument);
}

TEST(tensor_io, outputs_go_to_their_regions) {
  registered_object o{64};
  EXPECT_EQ(*output_regions::resolve(o.registry(), {}), nullptr);
  auto regions = output_regions::resolve(o.registry(), {{"OUT", {"r", 8, 16}}});
  ASSERT_TRUE(regions) << regions.error().to_string();
  ASSERT_NE(*regions, nullptr);
  auto& out = **regions;
  EXPECT_TRUE(out.contains("OUT"));
  EXPECT_FALSE(out.contains("OTHER"));
  auto target = o.registry().resolve("r", 8, 16);
  ASSERT_TRUE(target);

  auto placed = out.allocate("OUT", 12, runtime::memory_type::cpu, 0);
  ASSERT_TRUE(placed);
  EXPECT_EQ(placed->data(), target->data());
  EXPECT_EQ(placed->size(), 12u);
  auto big = out.allocate("OUT", 17, runtime::memory_type::cpu, 0);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message(),
            "shared memory size specified with the request for output 'OUT' (16 bytes) should "
            "be at least 17 bytes to hold the results");
  auto host = out.allocate("OTHER", 4, runtime::memory_type::cpu, 0);
  ASSERT_TRUE(host);
  EXPECT_NE(host->data(), target->data());

  // An output the backend made elsewhere is copied in.
  runtime::inference_response r;
  runtime::tensor t = fp32_input({2});
  t.name = "OUT";
  t.data = *host;
  std::memcpy(t.data.data(), "abcd", 4);
  t.data = t.data.slice(0, 4);
  r.outputs.push_back(t);
  ASSERT_TRUE(out.deliver(r));
  EXPECT_EQ(std::memcmp(target->data(), "abcd", 4), 0);
}

TEST(tensor_io, cuda_regions_are_refused) {
  auto reg = register_cuda("c");
  EXPECT_EQ(reg.code(), runtime::errc::invalid_argument);
  EXPECT_EQ(reg.message(), "failed to register CUDA shared memory region: 'c', GPUs not supported");
  EXPECT_TRUE(cuda_status(""));
  EXPECT_EQ(cuda_status("c").code(), runtime::errc::not_found);
  EXPECT_EQ(cuda_status("c").message(), "Unable to find cuda shared memory region: 'c'");
}

} // namespace
} // namespace conch::transports::shm
