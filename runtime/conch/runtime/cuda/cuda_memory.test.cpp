#include "conch/runtime/cuda/cuda_memory.hpp"

#include <cstring>

#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

using namespace conch::runtime;

TEST(cuda_memory, reports_devices_or_none_without_crashing) {
  cuda::cuda_memory mem;
  EXPECT_GE(mem.device_count(), 0);
}

TEST(cuda_memory, preferred_allocator_falls_back_to_host_without_devices) {
  auto n = cuda::register_cuda_memory();
  preferred_allocator alloc;
  auto out = alloc.allocate("OUT", 64, memory_type::cpu_pinned, 0);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->size(), 64u);
  if (n == 0)
    EXPECT_EQ(out->type(), memory_type::cpu);
  else
    EXPECT_EQ(out->type(), memory_type::cpu_pinned);
  std::memset(out->data(), 1, 64); // host-accessible either way
  set_device_memory(nullptr);
}

TEST(cuda_memory, device_allocation_on_a_gpu) {
  cuda::cuda_memory mem;
  if (mem.device_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine";
  auto out = mem.allocate_device(1 << 20, 0);
  ASSERT_TRUE(out.has_value()) << out.error().to_string();
  EXPECT_EQ(out->type(), memory_type::gpu);
  EXPECT_EQ(out->size(), size_t{1} << 20);
}

TEST(cuda_memory, pinned_and_device_buffers_round_trip_bytes) {
  cuda::cuda_memory mem;
  if (mem.device_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine";
  constexpr size_t n = 4096;
  auto pinned = mem.allocate_pinned(n);
  ASSERT_TRUE(pinned.has_value()) << pinned.error().to_string();
  EXPECT_EQ(pinned->type(), memory_type::cpu_pinned);
  auto device = mem.allocate_device(n, 0);
  ASSERT_TRUE(device.has_value()) << device.error().to_string();
  for (size_t i = 0; i < n; ++i)
    reinterpret_cast<unsigned char*>(pinned->data())[i] = static_cast<unsigned char>(i * 7);
  ASSERT_EQ(cudaMemcpy(device->data(), pinned->data(), n, cudaMemcpyHostToDevice), cudaSuccess);
  auto back = buffer::allocate(n);
  ASSERT_EQ(cudaMemcpy(back.data(), device->data(), n, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(std::memcmp(back.data(), pinned->data(), n), 0);
}

TEST(cuda_memory, preferred_allocator_gives_device_memory_on_a_gpu) {
  if (cuda::register_cuda_memory() == 0) {
    set_device_memory(nullptr);
    GTEST_SKIP() << "no CUDA device on this machine";
  }
  preferred_allocator alloc;
  auto out = alloc.allocate("OUT", 256, memory_type::gpu, 0);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->type(), memory_type::gpu);
  EXPECT_EQ(out->device_id(), 0);
  EXPECT_FALSE(out->host_accessible());
  set_device_memory(nullptr);
}
