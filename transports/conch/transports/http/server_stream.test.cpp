// Streamed (server-sent events) answers on the wire.
#include <gtest/gtest.h>

#include "conch/transports/http/server.hpp"
#include "conch/transports/http/test/raw_client.hpp"
#include "conch/transports/http/test/test_handler.hpp"

namespace conch::transports::http {
namespace {

using test::make_request;
using test::raw_client;

class server_stream : public ::testing::Test {
 protected:
  std::shared_ptr<test::test_handler> handler_ = std::make_shared<test::test_handler>();
  std::unique_ptr<server> server_ = test::start_server(handler_);

  response sse_head() {
    response head{200};
    head.headers.set("Content-Type", "text/event-stream");
    return head;
  }
};

TEST_F(server_stream, events_reach_the_client_as_they_are_written) {
  raw_client client{server_->bound_port()};
  ASSERT_TRUE(client.send(make_request("POST", "/hold", "{}")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  auto& res = held[0].res;
  res.begin_stream(sse_head());
  res.write("data: {\"n\":1}\n\n");
  // The first event arrives before the second is written.
  ASSERT_TRUE(client.wait_for("data: {\"n\":1}\n\n"));
  EXPECT_NE(client.unread().find("Transfer-Encoding: chunked\r\n"), std::string::npos);
  EXPECT_NE(client.unread().find("Content-Type: text/event-stream\r\n"), std::string::npos);
  res.write("data: {\"n\":2}\n\n");
  res.end_stream();
  auto resp = client.read_response();
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
  EXPECT_TRUE(resp->chunked);
  EXPECT_EQ(resp->body, "data: {\"n\":1}\n\ndata: {\"n\":2}\n\n");
  // The connection is reusable after the stream ended.
  ASSERT_TRUE(client.send(make_request("POST", "/echo", "after")));
  auto next = client.read_response();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "after");
}

TEST_F(server_stream, a_stream_behind_a_pending_answer_waits_its_turn) {
  raw_client client{server_->bound_port()};
  ASSERT_TRUE(client.send(make_request("POST", "/hold", "1") + make_request("POST", "/hold", "2")));
  auto held = handler_->take_held(2);
  ASSERT_EQ(held.size(), 2u);
  held[1].res.begin_stream(sse_head());
  held[1].res.write("data: second\n\n");
  held[1].res.end_stream();
  held[0].res.send(response::text(200, "first"));
  auto first = client.read_response();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->body, "first");
  auto second = client.read_response();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, "data: second\n\n");
}

TEST_F(server_stream, an_abandoned_stream_ends_the_connection) {
  raw_client client{server_->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  held[0].res.begin_stream(sse_head());
  held[0].res.write("data: partial\n\n");
  held.clear();  // destroys the responder mid-stream
  EXPECT_TRUE(client.wait_closed());
  EXPECT_NE(client.unread().find("data: partial\n\n"), std::string::npos);
  EXPECT_EQ(client.unread().find("\r\n0\r\n\r\n"), std::string::npos);  // no last chunk
}

TEST_F(server_stream, client_leaving_mid_stream_cancels_the_request) {
  raw_client client{server_->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/hold")));
  auto held = handler_->take_held(1);
  ASSERT_EQ(held.size(), 1u);
  held[0].res.begin_stream(sse_head());
  held[0].res.write("data: one\n\n");
  ASSERT_TRUE(client.wait_for("data: one\n\n"));
  client.close();
  EXPECT_TRUE(handler_->wait_cancelled(1));
  held[0].res.write("data: nobody listens\n\n");
  held[0].res.end_stream();
}

} // namespace
} // namespace conch::transports::http
