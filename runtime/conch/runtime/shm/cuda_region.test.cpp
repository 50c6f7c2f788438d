#include "conch/runtime/shm/cuda_region.hpp"

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "conch/runtime/test/fake_device_memory.hpp"

namespace conch::runtime::shm {
namespace {

using runtime::test::fake_device_memory;

std::string refusal(const std::string& why) {
  return "failed to register CUDA shared memory region: 'c', " + why;
}

TEST(cuda_region, a_server_without_a_provider_or_gpus_does_not_support_gpus) {
  fake_device_memory none{0};
  for (runtime::device_memory* memory : {static_cast<runtime::device_memory*>(nullptr),
                                         static_cast<runtime::device_memory*>(&none)}) {
    // Whatever the client sent.
    auto r = cuda_region::open(memory, "c", "short", -1, 0);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), runtime::errc::invalid_argument);
    EXPECT_EQ(r.error().message(), refusal("GPUs not supported"));
  }
}

TEST(cuda_region, opens_a_handle_on_a_device_of_the_server) {
  fake_device_memory memory{2};
  auto handle = memory.export_allocation(256, 1);
  std::memcpy(memory.bytes(handle), "gpu bytes", 9);
  auto opened = cuda_region::open(&memory, "c", handle, 1, 128);
  ASSERT_TRUE(opened) << opened.error().to_string();
  std::shared_ptr<const cuda_region> region = std::move(*opened);
  EXPECT_EQ(region->name(), "c");
  EXPECT_EQ(region->device_id(), 1);
  EXPECT_EQ(region->byte_size(), 128u);
  EXPECT_EQ(region->bytes().type(), runtime::memory_type::gpu);
  EXPECT_EQ(std::memcmp(region->bytes().data(), "gpu bytes", 9), 0);
  EXPECT_EQ(memory.open_handles(), 1);
  region.reset();
  EXPECT_EQ(memory.open_handles(), 0);
}

TEST(cuda_region, refuses_bad_handles_devices_and_sizes_naming_the_region) {
  fake_device_memory memory{1};
  auto handle = memory.export_allocation(64);
  auto short_handle = cuda_region::open(&memory, "c", handle.substr(0, 60), 0, 64);
  ASSERT_FALSE(short_handle);
  EXPECT_EQ(short_handle.error().code(), runtime::errc::invalid_argument);
  EXPECT_EQ(short_handle.error().message(),
            refusal("the raw handle must be 64 bytes (a cudaIpcMemHandle_t), not 60"));
  for (int64_t device : {int64_t{-1}, int64_t{1}}) {
    auto r = cuda_region::open(&memory, "c", handle, device, 64);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code(), runtime::errc::invalid_argument);
    EXPECT_EQ(r.error().message(),
              refusal("invalid device id " + std::to_string(device) + " (the server has 1 GPU)"));
  }
  auto zero = cuda_region::open(&memory, "c", handle, 0, 0);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message(), refusal("byte_size must be greater than 0"));
  // The provider's own error when the handle does not open.
  auto garbage = cuda_region::open(&memory, "c", std::string(64, 'x'), 0, 64);
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().code(), runtime::errc::invalid_argument);
  EXPECT_EQ(garbage.error().message(),
            refusal("cudaIpcOpenMemHandle failed: invalid argument"));
  // A byte_size past the allocation behind the handle is a lie.
  auto larger = cuda_region::open(&memory, "c", handle, 0, 65);
  ASSERT_FALSE(larger);
  EXPECT_EQ(larger.error().code(), runtime::errc::invalid_argument);
  EXPECT_EQ(larger.error().message(),
            refusal("byte_size 65 exceeds the 64 bytes of the allocation behind the CUDA IPC "
                    "handle"));
  EXPECT_EQ(memory.open_handles(), 0);
}

} // namespace
} // namespace conch::runtime::shm
