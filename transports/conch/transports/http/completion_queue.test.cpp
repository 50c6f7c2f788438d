#include "conch/transports/http/completion_queue.hpp"

#include <gtest/gtest.h>

namespace conch::transports::http {
namespace {

// A loop with one async handle that counts its wake-ups.
class completion_queue_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(uv_loop_init(&loop_), 0);
    ASSERT_EQ(uv_async_init(&loop_, &wake_, [](uv_async_t* a) {
                ++*static_cast<int*>(a->data);
              }), 0);
    wake_.data = &wakes_;
  }

  void TearDown() override {
    queue_.close();
    uv_close(reinterpret_cast<uv_handle_t*>(&wake_), nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  }

  // Runs what is due without blocking; returns the wake-ups seen so far.
  int run_once() {
    uv_run(&loop_, UV_RUN_NOWAIT);
    return wakes_;
  }

  static completion for_connection(uint64_t id) {
    completion c;
    c.connection_id = id;
    return c;
  }

  uv_loop_t loop_;
  uv_async_t wake_;
  int wakes_ = 0;
  completion_queue queue_{&wake_};
};

TEST_F(completion_queue_test, a_push_wakes_the_loop_and_take_empties_the_queue) {
  EXPECT_FALSE(queue_.ready());
  ASSERT_TRUE(queue_.push(for_connection(7)));
  EXPECT_TRUE(queue_.ready());
  EXPECT_EQ(run_once(), 1);
  auto batch = queue_.take();
  ASSERT_EQ(batch.completions.size(), 1u);
  EXPECT_EQ(batch.completions[0].connection_id, 7u);
  EXPECT_FALSE(queue_.ready());
}

TEST_F(completion_queue_test, a_polled_queue_is_not_woken_and_reports_what_it_holds) {
  EXPECT_FALSE(queue_.set_polled(true));
  ASSERT_TRUE(queue_.push(for_connection(1)));
  ASSERT_TRUE(queue_.push(for_connection(2)));
  EXPECT_EQ(run_once(), 0);
  EXPECT_TRUE(queue_.ready());
  // Stopping the poll with completions queued says so, so none is missed.
  EXPECT_TRUE(queue_.set_polled(false));
  EXPECT_EQ(queue_.take().completions.size(), 2u);
  EXPECT_FALSE(queue_.set_polled(true));
  EXPECT_FALSE(queue_.set_polled(false));
  // Unpolled again: a push wakes the loop.
  ASSERT_TRUE(queue_.push(for_connection(3)));
  EXPECT_EQ(run_once(), 1);
}

TEST_F(completion_queue_test, pushes_after_close_are_dropped) {
  ASSERT_TRUE(queue_.push(for_connection(1)));
  queue_.close();
  EXPECT_FALSE(queue_.ready());
  EXPECT_FALSE(queue_.push(for_connection(2)));
  EXPECT_TRUE(queue_.take().completions.empty());
}

} // namespace
} // namespace conch::transports::http
