#include "conch/transports/http/pipeline.hpp"

#include <gtest/gtest.h>

namespace conch::transports::http {
namespace {

std::string joined(const pipeline::ready& r) {
  std::string out;
  for (auto& p : r.pieces)
    out.append(p.data(), p.size());
  return out;
}

slot_info info_for(request_ptr req, bool keep_alive = true) {
  return slot_info{std::move(req), keep_alive, false, false};
}

TEST(pipeline, answers_leave_in_request_order) {
  pipeline p;
  auto a = p.open(info_for(nullptr));
  auto b = p.open(info_for(nullptr));
  p.respond(b, response::text(200, "B"), false);
  EXPECT_TRUE(p.take().pieces.empty());  // b waits for a
  p.respond(a, response::text(200, "A"), false);
  auto out = joined(p.take());
  EXPECT_LT(out.find("\r\n\r\nA"), out.find("\r\n\r\nB"));
  EXPECT_TRUE(p.empty());
}

TEST(pipeline, a_closing_answer_stops_the_output) {
  pipeline p;
  auto a = p.open(info_for(nullptr, false));
  auto b = p.open(info_for(nullptr));
  p.respond(b, response::text(200, "B"), false);
  p.respond(a, response::text(200, "A"), false);
  auto ready = p.take();
  EXPECT_TRUE(ready.close);
  EXPECT_NE(joined(ready).find("Connection: close\r\n"), std::string::npos);
  EXPECT_EQ(joined(ready).find("B"), std::string::npos);
}

TEST(pipeline, streams_are_chunked_and_flow_while_open) {
  pipeline p;
  auto s = p.open(info_for(nullptr));
  p.stream_begin(s, response{200}, false);
  p.stream_chunk(s, runtime::buffer::copy_of("hello", 5));
  auto first = joined(p.take());
  EXPECT_NE(first.find("Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"), std::string::npos);
  p.stream_end(s);
  EXPECT_EQ(joined(p.take()), "0\r\n\r\n");
  EXPECT_TRUE(p.empty());
}

TEST(pipeline, cancel_all_reaches_only_unanswered_requests) {
  pipeline p;
  auto answered = std::make_shared<request>();
  auto waiting = std::make_shared<request>();
  int hooks = 0;
  answered->on_cancel([&] { ++hooks; });
  waiting->on_cancel([&] { ++hooks; });
  auto a = p.open(info_for(answered));
  p.open(info_for(waiting));
  p.respond(a, response{204}, false);
  p.cancel_all();
  EXPECT_EQ(hooks, 1);
  EXPECT_TRUE(waiting->cancelled());
  EXPECT_FALSE(answered->cancelled());
}

TEST(pipeline, late_and_repeated_answers_are_ignored) {
  pipeline p;
  auto a = p.open(info_for(nullptr));
  p.respond(a, response::text(200, "A"), false);
  p.respond(a, response::text(500, "again"), false);
  auto out = joined(p.take());
  EXPECT_EQ(out.find("again"), std::string::npos);
  p.respond(a, response::text(200, "late"), false);
  EXPECT_TRUE(p.take().pieces.empty());
}

} // namespace
} // namespace conch::transports::http
