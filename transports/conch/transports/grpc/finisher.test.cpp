#include "conch/transports/grpc/finisher.hpp"

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace conch::transports::grpc {
namespace {

TEST(finisher, runs_tasks_in_order_on_a_thread_of_its_own) {
  finisher f;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  std::promise<void> done;
  for (int i = 0; i < 100; ++i)
    f.post([&, i] {
      order.push_back(i);
      threads.push_back(std::this_thread::get_id());
    });
  f.post([&] { done.set_value(); });
  auto ready = done.get_future();
  ASSERT_EQ(ready.wait_for(std::chrono::seconds{30}), std::future_status::ready);
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(order[i], i);
    EXPECT_EQ(threads[i], threads.front());
  }
  EXPECT_NE(threads.front(), std::this_thread::get_id());
}

TEST(finisher, destruction_runs_what_is_queued_and_lets_go_of_it) {
  auto held = std::make_shared<int>(0);
  int ran = 0;
  {
    finisher f;
    std::promise<void> release;
    auto gate = release.get_future().share();
    f.post([gate] { gate.wait(); }); // the thread is busy: the rest queues
    for (int i = 0; i < 10; ++i)
      f.post([&ran, held] { ++ran; });
    release.set_value();
  }
  EXPECT_EQ(ran, 10);
  EXPECT_EQ(held.use_count(), 1) << "a task's captures outlived the finisher";
}

TEST(finisher, once_closing_try_post_leaves_the_task_to_the_caller) {
  auto f = std::make_unique<finisher>();
  // Alive until its destructor returns, which waits for the first task.
  finisher* raw = f.get();
  std::promise<void> release;
  auto gate = release.get_future().share();
  bool queued_while_closing = true;
  bool left_callable = false;
  raw->post([&, gate] {
    gate.wait();  // runs while the destructor waits for this thread
    std::function<void()> late = [] {};
    queued_while_closing = raw->try_post(late);
    left_callable = static_cast<bool>(late);
  });
  std::thread destroying{[&] { f.reset(); }};
  // try_post queues until the destructor has begun; then it refuses.
  for (;;) {
    std::function<void()> probe = [] {};
    if (!raw->try_post(probe))
      break;
    std::this_thread::yield();
  }
  release.set_value();
  destroying.join();
  EXPECT_FALSE(queued_while_closing);
  EXPECT_TRUE(left_callable);
}

} // namespace
} // namespace conch::transports::grpc
