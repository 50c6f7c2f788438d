// inflight_calls: admission until stop (unary calls until cancelled), stop
// hooks, cancellation.

#include "conch/transports/grpc/inflight_calls.hpp"

#include <gtest/gtest.h>

namespace conch::transports::grpc {
namespace {

TEST(inflight_calls, admits_until_stopped) {
  inflight_calls calls;
  EXPECT_TRUE(calls.admit());
  EXPECT_FALSE(calls.stopping());
  calls.stop();
  EXPECT_TRUE(calls.stopping());
  EXPECT_FALSE(calls.admit());
}

TEST(inflight_calls, unary_calls_are_admitted_while_draining_until_cancelled) {
  inflight_calls calls;
  calls.stop();
  auto drained = calls.admit_unary();
  ASSERT_TRUE(drained);
  EXPECT_EQ(calls.in_flight(), 1u);
  int cancelled = 0;
  calls.set_cancel(*drained, [&] { ++cancelled; });
  calls.cancel_all();
  EXPECT_EQ(cancelled, 1);
  EXPECT_FALSE(calls.admit_unary());
  EXPECT_FALSE(calls.admit());
}

TEST(inflight_calls, stop_tells_each_call_that_asked_once) {
  inflight_calls calls;
  auto a = calls.admit();
  auto b = calls.admit();
  auto c = calls.admit();
  int told_a = 0;
  int told_c = 0;
  calls.set_stop(*a, [&] { ++told_a; });
  calls.set_stop(*c, [&] { ++told_c; });
  calls.release(*c);
  calls.stop();
  calls.stop();
  EXPECT_EQ(told_a, 1);
  EXPECT_EQ(told_c, 0);  // released before the stop
  (void) b;
}

TEST(inflight_calls, cancel_all_cancels_the_calls_not_released) {
  inflight_calls calls;
  auto a = calls.admit();
  auto b = calls.admit();
  int cancelled_a = 0;
  int cancelled_b = 0;
  calls.set_cancel(*a, [&] { ++cancelled_a; });
  calls.set_cancel(*b, [&] { ++cancelled_b; });
  calls.release(*b);
  calls.cancel_all();
  EXPECT_EQ(cancelled_a, 1);
  EXPECT_EQ(cancelled_b, 0);
}

TEST(inflight_calls, a_hook_may_release_its_own_call) {
  inflight_calls calls;
  auto a = calls.admit();
  calls.set_stop(*a, [&] { calls.release(*a); });
  calls.set_cancel(*a, [&] { calls.release(*a); });
  calls.stop();
  calls.cancel_all();
  EXPECT_TRUE(calls.stopping());
}

} // namespace
} // namespace conch::transports::grpc
