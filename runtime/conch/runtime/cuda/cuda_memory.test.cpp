#include "conch/runtime/cuda/cuda_memory.hpp"

#include <cstring>
#include <string>

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

TEST(cuda_memory, a_handle_of_the_wrong_size_is_refused_before_cuda_is_asked) {
  cuda::cuda_memory mem;
  auto out = mem.open_ipc_handle(std::string(63, '\0'), 0, 64);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().code(), conch::runtime::errc::invalid_argument);
  EXPECT_EQ(out.error().message(), "a CUDA IPC handle has 64 bytes, not 63");
}

TEST(cuda_memory, copies_between_host_buffers_without_a_gpu) {
  cuda::cuda_memory mem;
  auto from = buffer::copy_of("abcdefgh", 8);
  auto to = buffer::allocate(16);
  ASSERT_TRUE(mem.copy(to, from));
  EXPECT_EQ(std::memcmp(to.data(), "abcdefgh", 8), 0);
  auto small = mem.copy(buffer::allocate(4), from);
  EXPECT_EQ(small.code(), conch::runtime::errc::invalid_argument);
  EXPECT_EQ(small.message(), "cannot copy 8 bytes into 4");
}

TEST(cuda_memory, copies_host_to_device_and_back_on_a_gpu) {
  cuda::cuda_memory mem;
  if (mem.device_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine";
  constexpr size_t n = 4096;
  auto device = mem.allocate_device(n, 0);
  ASSERT_TRUE(device.has_value()) << device.error().to_string();
  auto host = buffer::allocate(n);
  for (size_t i = 0; i < n; ++i)
    reinterpret_cast<unsigned char*>(host.data())[i] = static_cast<unsigned char>(i * 13);
  ASSERT_TRUE(mem.copy(*device, host));
  // A part of the device buffer back into pinned memory, then into pageable.
  auto pinned = mem.allocate_pinned(n);
  ASSERT_TRUE(pinned.has_value()) << pinned.error().to_string();
  ASSERT_TRUE(mem.copy(*pinned, device->slice(0, n)));
  auto back = buffer::allocate(n);
  ASSERT_TRUE(mem.copy(back, *device));
  EXPECT_EQ(std::memcmp(back.data(), host.data(), n), 0);
  EXPECT_EQ(std::memcmp(pinned->data(), host.data(), n), 0);
  EXPECT_EQ(mem.copy(host.slice(0, 16), *device).code(), conch::runtime::errc::invalid_argument);
}

TEST(cuda_memory, opening_a_zeroed_or_garbage_handle_fails_cleanly_on_a_gpu) {
  // CUDA refuses to open a handle in the process that exported it, so a
  // real round trip needs a second process; bad handles need only a GPU.
  cuda::cuda_memory mem;
  if (mem.device_count() == 0)
    GTEST_SKIP() << "no CUDA device on this machine";
  std::string garbage(64, '\0');
  for (size_t i = 0; i < garbage.size(); ++i)
    garbage[i] = static_cast<char>(i * 37 + 11);
  for (const auto& handle : {std::string(64, '\0'), garbage}) {
    auto out = mem.open_ipc_handle(handle, 0, 64);
    ASSERT_FALSE(out.has_value());
    EXPECT_NE(out.error().message().find("cudaIpcOpenMemHandle failed"), std::string::npos)
      << out.error().to_string();
  }
  // The runtime still works afterwards.
  EXPECT_TRUE(mem.allocate_device(64, 0).has_value());
}

TEST(cuda_memory, a_device_out_of_range_is_refused_on_a_gpu) {
  cuda::cuda_memory mem;
  auto n = mem.device_count();
  if (n == 0)
    GTEST_SKIP() << "no CUDA device on this machine";
  auto out = mem.open_ipc_handle(std::string(64, '\0'), n, 64);
  ASSERT_FALSE(out.has_value());
  EXPECT_NE(out.error().message().find("cudaSetDevice failed"), std::string::npos)
    << out.error().to_string();
}
