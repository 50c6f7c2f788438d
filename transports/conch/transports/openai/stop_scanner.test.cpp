#include "conch/transports/openai/stop_scanner.hpp"

#include <gtest/gtest.h>

namespace conch::transports::openai {
namespace {

TEST(stop_scanner, without_stops_passes_everything_on) {
  stop_scanner s{{}};
  EXPECT_EQ(s.feed("hello "), "hello ");
  EXPECT_EQ(s.feed("world"), "world");
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.flush(), "");
}

TEST(stop_scanner, cuts_at_a_stop_inside_one_piece) {
  stop_scanner s{{"END"}};
  EXPECT_EQ(s.feed("one two END three"), "one two ");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.feed("more"), "");
}

TEST(stop_scanner, holds_back_what_may_begin_a_stop_across_pieces) {
  stop_scanner s{{"<|end|>"}};
  EXPECT_EQ(s.feed("abc<|e"), "abc");
  EXPECT_EQ(s.feed("n"), "");
  EXPECT_EQ(s.feed("d|>tail"), "");
  EXPECT_TRUE(s.stopped());
}

TEST(stop_scanner, releases_a_false_start_once_it_cannot_match) {
  stop_scanner s{{"STOP"}};
  EXPECT_EQ(s.feed("ST"), "");
  EXPECT_EQ(s.feed("ART"), "START");
  EXPECT_EQ(s.feed("S"), "");
  EXPECT_EQ(s.flush(), "S");
  EXPECT_FALSE(s.stopped());
}

TEST(stop_scanner, the_earliest_of_several_stops_wins) {
  stop_scanner s{{"zz", "b"}};
  EXPECT_EQ(s.feed("a"), "a");
  EXPECT_EQ(s.feed("zzb"), "");
  EXPECT_TRUE(s.stopped());
  stop_scanner t{{"zz", "b"}};
  EXPECT_EQ(t.feed("abzz"), "a");
}

TEST(stop_scanner, a_piece_at_a_time_gives_what_one_piece_gives) {
  const std::string text = "the quick brown fox jumps over the lazy dog";
  for (const char* stop : {"fox", "dog", "cat", "the l", "g"}) {
    stop_scanner whole{{stop}};
    auto expected = whole.feed(text) + whole.flush();
    stop_scanner bytewise{{stop}};
    std::string got;
    for (char c : text)
      got += bytewise.feed(std::string_view{&c, 1});
    got += bytewise.flush();
    EXPECT_EQ(got, expected) << stop;
  }
}

} // namespace
} // namespace conch::transports::openai
