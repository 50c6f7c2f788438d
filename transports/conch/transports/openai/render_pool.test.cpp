#include "conch/transports/openai/render_pool.hpp"

#include <atomic>
#include <chrono>
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

TEST(render_pool, after_stop_it_refuses_and_a_held_pool_runs_nothing) {
  auto pool = std::make_shared<render_pool>(2, 8);
  std::weak_ptr<render_pool> held = pool;
  pool->stop();
  EXPECT_FALSE(pool->post([] {}));
  auto still = held.lock();  // an answer in flight may still hold it
  ASSERT_TRUE(still);
  EXPECT_FALSE(still->post([] {}));
}

TEST(render_pool, a_task_may_drop_the_last_reference_to_its_pool) {
  auto pool = std::make_shared<render_pool>(1, 8);
  std::promise<void> done;
  auto finished = done.get_future();
  auto* raw = pool.get();
  ASSERT_TRUE(raw->post([p = std::move(pool), &done]() mutable {
    p.reset();  // the pool stops and is destroyed on its own thread
    done.set_value();
  }));
  EXPECT_EQ(finished.wait_for(std::chrono::seconds{10}), std::future_status::ready);
}

} // namespace
} // namespace conch::transports::openai
