#include "conch/runtime/memory_pool/pooled_device_memory.hpp"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "conch/runtime/memory_pool/pool_setup.hpp"
#include "conch/runtime/test/fake_device_memory.hpp"

namespace conch::runtime::memory_pool {
namespace {

using runtime::test::fake_device_memory;

// True when `inner` lies inside `outer`.
bool inside(const buffer& inner, const buffer& outer) {
  return inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size();
}

// A provider whose allocations all fail, as CUDA's do on a full device.
class failing_memory final : public device_memory {
 public:
  int device_count() const noexcept override { return 2; }
  result<buffer> allocate_pinned(size_t) override { return unavailable("cudaHostAlloc failed"); }
  result<buffer> allocate_device(size_t, int64_t) override {
    return unavailable("cudaMalloc failed: out of memory");
  }
  result<buffer> open_ipc_handle(std::string_view, int64_t, size_t) override {
    return unavailable("no");
  }
  status copy(const buffer&, const buffer&) override { return status::ok(); }
};

TEST(block_pool, cuts_buffers_from_its_block_and_takes_them_back) {
  auto block = buffer::allocate(4096);
  auto pool = block_pool::make(buffer{block.owner(), block.data(), 4096, memory_type::gpu, 1});
  {
    auto a = pool->allocate(1000);
    ASSERT_TRUE(a);
    EXPECT_TRUE(inside(*a, block));
    EXPECT_EQ(a->size(), 1000u);
    EXPECT_EQ(a->type(), memory_type::gpu);
    EXPECT_EQ(a->device_id(), 1);
    EXPECT_EQ(pool->usage().total_bytes, 4096u);
    EXPECT_EQ(pool->usage().used_bytes, 1024u);
    auto copy = *a;  // copies share the range
    a.reset();
    EXPECT_EQ(pool->usage().used_bytes, 1024u);
  }
  EXPECT_EQ(pool->usage().used_bytes, 0u);
}

TEST(block_pool, a_buffer_keeps_the_pool_alive_after_everything_else_goes) {
  std::weak_ptr<block_pool> watch;
  buffer kept;
  {
    auto pool = block_pool::make(buffer::allocate(1024));
    watch = pool;
    kept = *pool->allocate(10);
  }
  EXPECT_FALSE(watch.expired());
  kept = buffer{};
  EXPECT_TRUE(watch.expired());
}

TEST(block_pool, many_threads_allocating_and_freeing_leave_it_empty) {
  auto pool = block_pool::make(buffer::allocate(1 << 16));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&pool, t] {
      std::vector<buffer> held;
      for (int i = 0; i < 2000; ++i) {
        if (auto b = pool->allocate(static_cast<size_t>((i * 37 + t) % 900)))
          held.push_back(std::move(*b));
        if (held.size() > 8)
          held.erase(held.begin());
      }
    });
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(pool->usage().used_bytes, 0u);
}

TEST(pooled_device_memory, serves_from_the_pools_first_and_from_the_provider_when_full) {
  auto fake = std::make_shared<fake_device_memory>(2);
  pool_sizes sizes;
  sizes.pinned_bytes = 4096;
  sizes.device_bytes = {{1, 8192}};
  sizes.default_device_bytes = 2048;
  auto setup = make_pools(fake, sizes);
  ASSERT_TRUE(setup.failures.empty());
  auto& pooled = *setup.provider;
  EXPECT_EQ(pooled.device_count(), 2);
  EXPECT_EQ(pooled.pinned_pool().total_bytes, 4096u);
  EXPECT_EQ(pooled.device_pool(0).total_bytes, 2048u);
  EXPECT_EQ(pooled.device_pool(1).total_bytes, 8192u);
  EXPECT_EQ(pooled.device_pool(2).total_bytes, 0u);

  auto pinned = pooled.allocate_pinned(4000);
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->type(), memory_type::cpu_pinned);
  EXPECT_EQ(pooled.pinned_pool().used_bytes, 4096u);
  auto overflow = pooled.allocate_pinned(100);  // the pool is full: from the provider
  ASSERT_TRUE(overflow);
  EXPECT_EQ(overflow->type(), memory_type::cpu_pinned);
  EXPECT_EQ(pooled.pinned_pool().used_bytes, 4096u);

  auto on_one = pooled.allocate_device(5000, 1);
  ASSERT_TRUE(on_one);
  EXPECT_EQ(on_one->type(), memory_type::gpu);
  EXPECT_EQ(on_one->device_id(), 1);
  EXPECT_EQ(pooled.device_pool(1).used_bytes, 5120u);
  EXPECT_EQ(pooled.device_pool(0).used_bytes, 0u);
  auto big = pooled.allocate_device(1 << 20, 0);  // larger than the pool
  ASSERT_TRUE(big);
  EXPECT_EQ(big->size(), size_t{1} << 20);
  EXPECT_EQ(pooled.device_pool(0).used_bytes, 0u);

  *pinned = buffer{};
  *on_one = buffer{};
  EXPECT_EQ(pooled.pinned_pool().used_bytes, 0u);
  EXPECT_EQ(pooled.device_pool(1).used_bytes, 0u);
}

TEST(pooled_device_memory, passes_handles_copies_and_waits_to_the_provider) {
  auto fake = std::make_shared<fake_device_memory>(1);
  auto handle = fake->export_allocation(512);
  auto pooled = make_pools(fake, pool_sizes{1024, {}, 1024}).provider;
  auto region = pooled->open_ipc_handle(handle, 0, 512);
  ASSERT_TRUE(region);
  EXPECT_EQ(fake->open_handles(), 1);
  auto host = buffer::copy_of("abc", 3);
  auto device = pooled->allocate_device(3, 0);
  ASSERT_TRUE(device);
  EXPECT_TRUE(pooled->copy(*device, host).is_ok());
  EXPECT_EQ(fake->copies(), 1);
  EXPECT_TRUE(pooled->synchronize(0).is_ok());
  EXPECT_FALSE(pooled->copy(buffer::allocate(1), host).is_ok());
}

TEST(pool_setup, zero_sizes_mean_no_pools) {
  auto fake = std::make_shared<fake_device_memory>(2);
  pool_sizes sizes{0, {{1, 4096}}, 0};
  auto setup = make_pools(fake, sizes);
  EXPECT_TRUE(setup.failures.empty());
  EXPECT_EQ(setup.provider->pinned_pool().total_bytes, 0u);
  EXPECT_EQ(setup.provider->device_pool(0).total_bytes, 0u);
  EXPECT_EQ(setup.provider->device_pool(1).total_bytes, 4096u);
  EXPECT_TRUE(setup.provider->allocate_pinned(10));  // straight from the provider
}

TEST(pool_setup, a_pool_that_cannot_be_allocated_is_left_out_and_named) {
  auto setup = make_pools(std::make_shared<failing_memory>(), pool_sizes{});
  ASSERT_EQ(setup.failures.size(), 3u);
  EXPECT_NE(setup.failures[0].find("pinned memory pool"), std::string::npos);
  EXPECT_NE(setup.failures[0].find("cudaHostAlloc failed"), std::string::npos);
  EXPECT_NE(setup.failures[2].find("GPU 1"), std::string::npos);
  EXPECT_EQ(setup.provider->pinned_pool().total_bytes, 0u);
  auto out = setup.provider->allocate_device(16, 0);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message().find("out of memory"), std::string::npos);
}

} // namespace
} // namespace conch::runtime::memory_pool
