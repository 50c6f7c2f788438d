#include "conch/transports/openai/render_pool.hpp"

#include <atomic>
#include <future>
#include <memory>

#include <gtest/gtest.h>

namespace conch::transports::openai {
namespace {

TEST(render_pool, runs_what_is_posted_off_the_calling_thread) {
  render_pool pool{2, 8};
  std::promise<std::thread::id> ran;
  auto future = ran.get_future();
  ASSERT_TRUE(pool.post([&ran] { ran.set_value(std::this_thread::get_id()); }));
  EXPECT_NE(future.get(), std::this_thread::get_id());
}

TEST(render_pool, refuses_past_its_queue_and_drops_what_waits_when_destroyed) {
  std::promise<void> release;
  auto released = release.get_future().share();
  auto dropped = std::make_shared<int>(0);
  std::weak_ptr<int> watch = dropped;
  {
    render_pool pool{1, 2};
    std::promise<void> started;
    ASSERT_TRUE(pool.post([&started, released] {
      started.set_value();
      released.wait();
    }));
    started.get_future().wait();  // the one thread is busy now
    ASSERT_TRUE(pool.post([dropped] {}));
    ASSERT_TRUE(pool.post([dropped] {}));
    EXPECT_FALSE(pool.post([] {}));  // the queue holds 2
    dropped.reset();
    release.set_value();
  }
  EXPECT_TRUE(watch.expired());  // what waited was run or dropped, not kept
}

} // namespace
} // namespace conch::transports::openai
