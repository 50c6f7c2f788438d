#include "conch/runtime/cuda/cuda_memory.hpp"

#include <cstring>

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
