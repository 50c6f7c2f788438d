// The pinned and CUDA memory pools a server allocates at start. No test
// machine is sure to have a GPU, so the process gets a fake device memory
// provider (host memory labelled as pinned or a GPU's); the pools, the
// allocations cut from them and the gauges are the real ones.

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/test/fake_device_memory.hpp"
#include "support/server_fixture.hpp"

namespace conch::tests {
namespace {

using runtime::memory_type;
using runtime::test::fake_device_memory;
using runtime::test::scoped_device_memory;

class memory_pools : public server_fixture {
 protected:
  // The fake is installed before the servers start, and stays past their stop.
  std::shared_ptr<fake_device_memory> fake_ = std::make_shared<fake_device_memory>(2);
  scoped_device_memory installed_{fake_};
};

TEST_F(memory_pools, the_first_server_sizes_the_pools_and_the_gauges_show_them) {
  auto options = example_options();
  options.pinned_memory_pool_byte_size = 4096;
  options.cuda_memory_pool_byte_size = {{1, 0}};
  auto srv = start(options);
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto provider = runtime::get_device_memory();
  ASSERT_NE(provider, fake_);  // wrapped in the pools
  EXPECT_EQ(provider->pinned_pool().total_bytes, 4096u);
  EXPECT_EQ(provider->device_pool(0).total_bytes, uint64_t{64} << 20);  // the default
  EXPECT_EQ(provider->device_pool(1).total_bytes, 0u);                   // none asked for
  auto text = srv->metrics_text();
  EXPECT_NE(text.find("\nnv_pinned_memory_pool_total_bytes 4096\n"), std::string::npos) << text;

  // Pinned outputs come from the pool through the response allocator.
  runtime::preferred_allocator outputs;
  auto out = outputs.allocate("OUTPUT0", 1000, memory_type::cpu_pinned, 0);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->type(), memory_type::cpu_pinned);
  EXPECT_EQ(provider->pinned_pool().used_bytes, 1024u);
  auto gpu = outputs.allocate("OUTPUT0", 100, memory_type::gpu, 0);
  ASSERT_TRUE(gpu);
  EXPECT_EQ(provider->device_pool(0).used_bytes, 256u);
  *out = runtime::buffer{};
  *gpu = runtime::buffer{};
  EXPECT_EQ(provider->pinned_pool().used_bytes, 0u);
  EXPECT_EQ(provider->device_pool(0).used_bytes, 0u);

  // A second server shares the pools as the first sized them.
  auto second_options = example_options();
  second_options.pinned_memory_pool_byte_size = 0;
  auto second = start(second_options);
  ASSERT_TRUE(second) << second.error().to_string();
  EXPECT_EQ(runtime::get_device_memory(), provider);
  EXPECT_EQ(provider->pinned_pool().total_bytes, 4096u);
}

TEST_F(memory_pools, zero_sizes_leave_every_allocation_to_the_provider) {
  auto options = example_options();
  options.pinned_memory_pool_byte_size = 0;
  options.cuda_memory_pool_byte_size = {{0, 0}, {1, 0}};
  auto srv = start(options);
  ASSERT_TRUE(srv) << srv.error().to_string();
  auto provider = runtime::get_device_memory();
  EXPECT_EQ(provider->pinned_pool().total_bytes, 0u);
  EXPECT_EQ(provider->device_pool(0).total_bytes, 0u);
  auto pinned = provider->allocate_pinned(64);
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->type(), memory_type::cpu_pinned);
  EXPECT_NE(srv->metrics_text().find("\nnv_pinned_memory_pool_total_bytes 0\n"),
            std::string::npos);
}

TEST_F(memory_pools, a_host_without_a_gpu_gets_no_pools) {
  scoped_device_memory no_gpus{std::make_shared<fake_device_memory>(0)};
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  EXPECT_EQ(runtime::get_device_memory()->pinned_pool().total_bytes, 0u);
}

} // namespace
} // namespace conch::tests
