// The pinned and CUDA memory pools a server allocates at start. No test
// machine is sure to have a GPU, so the process gets a fake device memory
// provider (host memory labelled as pinned or a GPU's); the pools, the
// allocations cut from them and the gauges are the real ones.

#include <cstring>
#include <map>
#include <memory>
#include <optional>
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

// The fake is installed for the test's length. The servers are the test's
// own (not the fixture's), so that it decides when they go.
class memory_pools : public server_fixture {
 protected:
  actors::server start_own(actors::server_options options) {
    auto s = actors::server::start(sys(), std::move(options));
    EXPECT_TRUE(s) << s.error().to_string();
    return *s;
  }

  static actors::server_options pools(uint64_t pinned, std::map<int64_t, uint64_t> devices) {
    auto o = example_options();
    o.pinned_memory_pool_byte_size = pinned;
    o.cuda_memory_pool_byte_size = std::move(devices);
    return o;
  }

  std::shared_ptr<fake_device_memory> fake_ = std::make_shared<fake_device_memory>(2);
  scoped_device_memory installed_{fake_};
};

TEST_F(memory_pools, a_server_allocates_them_and_the_gauges_show_them) {
  std::optional<actors::server> srv = start_own(pools(4096, {{1, 0}}));
  auto provider = runtime::get_device_memory();
  ASSERT_NE(provider, fake_);  // wrapped in the pools
  EXPECT_EQ(provider->pinned_pool().total_bytes, 4096u);
  EXPECT_EQ(provider->device_pool(0).total_bytes, uint64_t{64} << 20);  // the default
  EXPECT_EQ(provider->device_pool(1).total_bytes, 0u);                   // none asked for
  auto text = srv->metrics_text();
  EXPECT_NE(text.find("\nnv_pinned_memory_pool_total_bytes 4096\n"), std::string::npos) << text;

  // Pinned and GPU outputs come from the pools through the response allocator.
  runtime::preferred_allocator outputs;
  auto pinned = outputs.allocate("OUTPUT0", 1000, memory_type::cpu_pinned, 0);
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->type(), memory_type::cpu_pinned);
  EXPECT_EQ(provider->pinned_pool().used_bytes, 1024u);
  auto gpu = outputs.allocate("OUTPUT0", 100, memory_type::gpu, 0);
  ASSERT_TRUE(gpu);
  EXPECT_EQ(provider->device_pool(0).used_bytes, 256u);
  *pinned = runtime::buffer{};
  *gpu = runtime::buffer{};
  EXPECT_EQ(provider->pinned_pool().used_bytes, 0u);
  EXPECT_EQ(provider->device_pool(0).used_bytes, 0u);
  EXPECT_TRUE(srv->stop().is_ok());
}

TEST_F(memory_pools, servers_share_them_and_the_last_to_go_releases_them) {
  std::optional<actors::server> first = start_own(pools(4096, {}));
  auto pooled = runtime::get_device_memory();
  // A second server, asking for other sizes, shares the first one's.
  std::optional<actors::server> second = start_own(pools(0, {{0, 1024}}));
  EXPECT_EQ(runtime::get_device_memory(), pooled);
  EXPECT_EQ(pooled->pinned_pool().total_bytes, 4096u);
  // A buffer cut from the pools outlives them.
  auto kept = pooled->allocate_pinned(100);
  ASSERT_TRUE(kept);
  EXPECT_TRUE(first->stop().is_ok());
  first.reset();
  EXPECT_EQ(runtime::get_device_memory(), pooled);  // the second holds them
  EXPECT_TRUE(second->stop().is_ok());
  second.reset();
  EXPECT_TRUE(eventually([&] { return runtime::get_device_memory() == fake_; }));
  std::memset(kept->data(), 7, kept->size());
  // The next server sizes pools of its own.
  std::optional<actors::server> third = start_own(pools(8192, {}));
  EXPECT_EQ(runtime::get_device_memory()->pinned_pool().total_bytes, 8192u);
  EXPECT_TRUE(third->stop().is_ok());
}

TEST_F(memory_pools, zero_sizes_leave_every_allocation_to_the_provider) {
  std::optional<actors::server> srv = start_own(pools(0, {{0, 0}, {1, 0}}));
  auto provider = runtime::get_device_memory();
  EXPECT_EQ(provider->pinned_pool().total_bytes, 0u);
  EXPECT_EQ(provider->device_pool(0).total_bytes, 0u);
  auto pinned = provider->allocate_pinned(64);
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->type(), memory_type::cpu_pinned);
  EXPECT_NE(srv->metrics_text().find("\nnv_pinned_memory_pool_total_bytes 0\n"),
            std::string::npos);
  EXPECT_TRUE(srv->stop().is_ok());
}

TEST_F(memory_pools, a_size_below_one_unit_still_gets_one) {
  std::optional<actors::server> srv = start_own(pools(1, {{0, 10}}));
  auto provider = runtime::get_device_memory();
  EXPECT_EQ(provider->pinned_pool().total_bytes, 256u);
  EXPECT_EQ(provider->device_pool(0).total_bytes, 256u);
  EXPECT_TRUE(srv->stop().is_ok());
}

TEST_F(memory_pools, a_host_without_a_gpu_gets_no_pools) {
  scoped_device_memory no_gpus{std::make_shared<fake_device_memory>(0)};
  std::optional<actors::server> srv = start_own(example_options());
  EXPECT_EQ(runtime::get_device_memory()->pinned_pool().total_bytes, 0u);
  EXPECT_TRUE(srv->stop().is_ok());
}

} // namespace
} // namespace conch::tests
