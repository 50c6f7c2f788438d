#include "conch/runtime/shm/tensor_io.hpp"

#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "conch/runtime/test/fake_device_memory.hpp"

namespace conch::runtime::shm {
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

// A registry over a fake GPU with one CUDA region "g" of `size` bytes.
class cuda_fixture {
 public:
  explicit cuda_fixture(size_t size)
    : memory_(std::make_shared<runtime::test::fake_device_memory>(2)), registry_(memory_),
      handle_(memory_->export_allocation(size, 1)) {
    EXPECT_TRUE(registry_.register_cuda("g", handle_, 1, size));
  }

  region_registry& registry() { return registry_; }
  runtime::test::fake_device_memory& memory() { return *memory_; }
  std::byte* device_bytes() { return memory_->bytes(handle_); }

 private:
  std::shared_ptr<runtime::test::fake_device_memory> memory_;
  region_registry registry_;
  std::string handle_;
};

TEST(tensor_io, an_input_in_a_cuda_region_is_copied_to_host_memory) {
  cuda_fixture f{64};
  const float values[2] = {1.5f, -2.0f};
  std::memcpy(f.device_bytes() + 16, values, 8);
  auto t = fp32_input({2});
  ASSERT_TRUE(resolve_input(f.registry(), {"g", 16, 8}, t));
  EXPECT_EQ(t.data.type(), runtime::memory_type::cpu);
  EXPECT_NE(t.data.data(), f.device_bytes() + 16);
  ASSERT_EQ(t.data.size(), 8u);
  EXPECT_EQ(std::memcmp(t.data.data(), values, 8), 0);
  EXPECT_EQ(f.memory().copies(), 1);

  auto wrong_size = fp32_input({3});
  EXPECT_EQ(resolve_input(f.registry(), {"g", 16, 8}, wrong_size).code(),
            runtime::errc::invalid_argument);
  auto outside = fp32_input({2});
  EXPECT_EQ(resolve_input(f.registry(), {"g", 60, 8}, outside).code(),
            runtime::errc::invalid_argument);
}

TEST(tensor_io, an_output_for_a_cuda_region_is_placed_only_on_its_gpu) {
  cuda_fixture f{64};
  auto regions = output_regions::resolve(f.registry(), {{"OUT", {"g", 8, 16}}});
  ASSERT_TRUE(regions) << regions.error().to_string();
  auto& out = **regions;
  auto* target = f.device_bytes() + 8;

  auto on_gpu = out.allocate("OUT", 12, runtime::memory_type::gpu, 1);
  ASSERT_TRUE(on_gpu);
  EXPECT_EQ(on_gpu->data(), target);
  EXPECT_EQ(on_gpu->type(), runtime::memory_type::gpu);
  EXPECT_EQ(on_gpu->device_id(), 1);
  for (auto [type, device] : {std::pair{runtime::memory_type::cpu, int64_t{1}},
                              std::pair{runtime::memory_type::cpu_pinned, int64_t{1}},
                              std::pair{runtime::memory_type::gpu, int64_t{0}}}) {
    auto elsewhere = out.allocate("OUT", 12, type, device);
    ASSERT_TRUE(elsewhere);
    EXPECT_NE(elsewhere->data(), target);
    EXPECT_TRUE(elsewhere->host_accessible());
  }
  EXPECT_EQ(out.allocate("OUT", 17, runtime::memory_type::gpu, 1).error().code(),
            runtime::errc::invalid_argument);

  // Written in place: nothing to copy.
  runtime::inference_response in_place;
  runtime::tensor t = fp32_input({3});
  t.name = "OUT";
  t.data = *on_gpu;
  in_place.outputs.push_back(t);
  ASSERT_TRUE(out.deliver(in_place));
  EXPECT_EQ(f.memory().copies(), 0);

  // Written to host memory: copied to the device.
  runtime::inference_response on_host;
  t.data = runtime::buffer::copy_of("0123456789ab", 12);
  on_host.outputs.push_back(t);
  ASSERT_TRUE(out.deliver(on_host));
  EXPECT_EQ(f.memory().copies(), 1);
  EXPECT_EQ(std::memcmp(target, "0123456789ab", 12), 0);

  runtime::inference_response too_big;
  t.data = runtime::buffer::allocate(20);
  too_big.outputs.push_back(t);
  EXPECT_EQ(out.deliver(too_big).code(), runtime::errc::invalid_argument);
}

// An output tensor "OUT" whose 4 bytes "wxyz" a backend left in (fake)
// device memory.
runtime::inference_response output_on_a_gpu() {
  runtime::tensor t = fp32_input({1});
  t.name = "OUT";
  auto host = runtime::buffer::copy_of("wxyz", 4);
  t.data = runtime::buffer{host.owner(), host.data(), 4, runtime::memory_type::gpu, 0};
  runtime::inference_response r;
  r.outputs.push_back(std::move(t));
  return r;
}

TEST(tensor_io, device_memory_for_a_system_region_is_copied_through_the_provider) {
  auto memory = std::make_shared<runtime::test::fake_device_memory>();
  runtime::test::scoped_device_memory installed{memory};
  registered_object o{64};
  auto regions = output_regions::resolve(o.registry(), {{"OUT", {"r", 0, 4}}});
  ASSERT_TRUE(regions);
  ASSERT_TRUE((*regions)->deliver(output_on_a_gpu()));
  EXPECT_EQ(memory->copies(), 1);
  auto target = o.registry().resolve("r", 0, 4);
  ASSERT_TRUE(target);
  EXPECT_EQ(std::memcmp(target->data(), "wxyz", 4), 0);
}

TEST(tensor_io, device_memory_cannot_be_delivered_without_a_provider) {
  runtime::test::scoped_device_memory installed{nullptr};
  registered_object o{64};
  auto regions = output_regions::resolve(o.registry(), {{"OUT", {"r", 0, 4}}});
  ASSERT_TRUE(regions);
  auto st = (*regions)->deliver(output_on_a_gpu());
  EXPECT_EQ(st.code(), runtime::errc::internal);
  EXPECT_EQ(st.message(), "output 'OUT' is not in host memory");
}

} // namespace
} // namespace conch::runtime::shm
