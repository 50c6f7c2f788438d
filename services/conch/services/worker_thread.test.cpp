#include "conch/services/worker_thread.hpp"

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace conch::services {
namespace {

using namespace std::chrono_literals;

// Waits for `f` without hanging the suite when the worker lost a task.
template <class T>
T get_within(std::future<T>& f) {
  EXPECT_EQ(f.wait_for(30s), std::future_status::ready);
  return f.get();
}

TEST(worker_thread, runs_tasks_in_order_on_one_thread_of_its_own) {
  worker_thread worker{"test"};
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  std::promise<void> done;
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(worker.post([&, i] {
      order.push_back(i);
      threads.push_back(std::this_thread::get_id());
    }));
  ASSERT_TRUE(worker.post([&] { done.set_value(); }));
  auto f = done.get_future();
  get_within(f);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (auto id : threads) {
    EXPECT_EQ(id, threads.front());
    EXPECT_NE(id, std::this_thread::get_id());
  }
}

TEST(worker_thread, a_task_posted_right_after_the_last_returned_runs) {
  // The worker spins for a moment after each task: whether a task arrives
  // during the spin, just after it or long after, it runs.
  worker_thread worker{"test"};
  for (int i = 0; i < 200; ++i) {
    std::promise<int> ran;
    ASSERT_TRUE(worker.post([&ran, i] { ran.set_value(i); }));
    auto f = ran.get_future();
    ASSERT_EQ(get_within(f), i);
    if (i % 50 == 49)
      std::this_thread::sleep_for(1ms); // past the spin: the worker sleeps
  }
}

TEST(worker_thread, close_runs_what_is_queued_then_on_exit_and_refuses_more) {
  std::promise<void> release;
  std::promise<std::vector<int>> exited;
  std::vector<int> ran;
  {
    worker_thread worker{"test"};
    auto gate = release.get_future().share();
    ASSERT_TRUE(worker.post([gate] { gate.wait(); }));
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(worker.post([&ran, i] { ran.push_back(i); }));
    worker.close([&] { exited.set_value(ran); });
    EXPECT_FALSE(worker.post([] {})) << "closed";
    release.set_value();
  }
  auto f = exited.get_future();
  EXPECT_EQ(get_within(f), (std::vector<int>{0, 1, 2}));
}

TEST(worker_thread, abandon_gives_up_on_a_task_that_does_not_return) {
  auto release = std::make_shared<std::promise<void>>();
  auto gate = release->get_future().share();
  auto worker = std::make_unique<worker_thread>("test");
  std::promise<void> started;
  ASSERT_TRUE(worker->post([gate, &started] {
    started.set_value();
    gate.wait();
  }));
  auto s = started.get_future();
  get_within(s);
  EXPECT_TRUE(worker->busy());
  worker->abandon();
  EXPECT_FALSE(worker->post([] {}));
  worker.reset(); // does not wait for the stuck task
  release->set_value();
}

} // namespace
} // namespace conch::services
