#include "conch/transports/protocol/admission.hpp"

#include <gtest/gtest.h>

namespace conch::transports::protocol {
namespace {

TEST(admission, refuses_beyond_the_limit_until_a_ticket_goes) {
  admission a{2};
  auto t1 = a.try_admit();
  auto t2 = a.try_admit();
  ASSERT_TRUE(t1 && t2);
  EXPECT_EQ(a.in_flight(), 2);
  EXPECT_FALSE(a.try_admit());
  EXPECT_EQ(a.in_flight(), 2);
  t1.reset();
  EXPECT_EQ(a.in_flight(), 1);
  EXPECT_TRUE(a.try_admit());
}

TEST(admission, zero_means_no_limit_and_tickets_may_outlive_it) {
  admission::ticket kept;
  {
    admission a{0};
    for (int i = 0; i < 100; ++i)
      kept = a.try_admit();
    EXPECT_EQ(a.in_flight(), 1);
  }
  kept.reset();
}

} // namespace
} // namespace conch::transports::protocol
